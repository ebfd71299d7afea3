/**
 * /docs runs under its Content-Security-Policy (DESIGN §10, issue #12): Swagger UI renders the
 * API's operations with no console error, and a CSP violation would be one.
 */

import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from '../support/server.js'
import { CHROMIUM_PATH, DESKTOP, hasChromium, launchBrowser } from './browser.js'

describe.skipIf(!hasChromium && !process.env.CI)(`the API reference in Chromium (${CHROMIUM_PATH})`, () => {
  let server: TestServer
  let browser: Browser

  beforeAll(async () => {
    server = await startServer()
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  it('renders every operation under its CSP, with no console error', async () => {
    const context = await browser.newContext(DESKTOP)
    const page = await context.newPage()
    const errors: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text())
    })
    page.on('pageerror', (error) => errors.push(error.message))
    const response = await page.goto(`${server.baseUrl}/docs/`, { waitUntil: 'networkidle' })
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'")
    await page.waitForSelector('.opblock-summary-path', { timeout: 15_000 })
    const paths = await page.locator('.opblock-summary-path').allTextContents()
    expect(paths.join(' ')).toContain('/api/v1/qr-codes')
    expect(paths.length).toBeGreaterThanOrEqual(18)
    expect(await page.locator('.info .title').textContent()).toBeTruthy()
    expect(errors).toEqual([])
    await context.close()
  })
})
