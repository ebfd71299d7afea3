/**
 * Takes the docs' screenshots: one phone-sized page per template, into docs/showcases/.
 * Run from the repository root: npx tsx --conditions=source test/browser/screenshots.ts
 */
import { mkdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { TEMPLATES } from '@qrctl/contract'
import { startServer } from '../support/server.js'
import { createSampleShowcase, launchBrowser, PHONE, startImageHost } from './browser.js'

const MAX_BYTES = 100 * 1024
const outDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'showcases')
mkdirSync(outDir, { recursive: true })

const server = await startServer()
const images = await startImageHost()
const browser = await launchBrowser()
try {
  const context = await browser.newContext(PHONE)
  const page = await context.newPage()
  for (const template of TEMPLATES) {
    const showcase = await createSampleShowcase(server, images, template)
    await page.goto(showcase.url, { waitUntil: 'networkidle' })
    const file = join(outDir, `${template}.png`)
    await page.screenshot({ path: file, fullPage: true })
    const bytes = statSync(file).size
    console.log(`${file}: ${Math.round(bytes / 1024)} KB`)
    if (bytes > MAX_BYTES) throw new Error(`${template}.png is ${bytes} bytes, over the docs' ${MAX_BYTES}`)
  }
  await context.close()
} finally {
  await browser.close()
  await images.close()
  await server.close()
}
