import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { CreateQrCodeInput } from '@qrctl/contract'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { missing } from '../../vitest.requirements.js'
import { api, createCode, dynamicCode, UNLIMITED } from '../api/helpers.js'
import { startServer, type TestServer } from '../support/server.js'
import { CHROMIUM_PATH, hasChromium, launchBrowser, PHONE } from './browser.js'

/** The customer's own site on loopback: echoes the path and query it was sent to. */
async function startDestination(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(
      `<!doctype html><title>Handbook</title><h1>Staff handbook</h1><p id="where">${req.url?.replace(/[<>&"]/g, '')}</p>`,
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}

const noChromium = missing(
  `chromium (${CHROMIUM_PATH})`,
  hasChromium,
  'apt-get install chromium, or point CHROMIUM_PATH at a Chromium binary',
)
describe.skipIf(noChromium)(`the password page in Chromium (${CHROMIUM_PATH})`, () => {
  let server: TestServer
  let destination: { url: string; server: Server }
  let browser: Browser

  beforeAll(async () => {
    server = await startServer({ env: UNLIMITED })
    destination = await startDestination()
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => destination?.server.close(resolve))
    await server?.close()
  })

  it('takes a typed password to the destination, after a wrong one shows the form again', async () => {
    const client = api(server, server.apiKey)
    const target = `${destination.url}/handbook`
    const code = await createCode(
      client,
      dynamicCode({
        content: target,
        targetUrl: target,
        password: 'staff only',
        forwardQuery: true,
      } as Partial<CreateQrCodeInput>),
    )
    const context = await browser.newContext(PHONE)
    const page = await context.newPage()
    const errors: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text())
    })
    const shown = await page.goto(`${code.shortUrl}?floor=3`)
    expect(shown?.status()).toBe(200)
    expect(await page.title()).toBe('This code is protected')
    expect(await page.content()).not.toContain(destination.url)

    await page.fill('input[name=password]', 'guess')
    const [wrong] = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')])
    expect(wrong?.status()).toBe(401)
    expect(await page.textContent('[role=alert]')).toContain('not right')

    await page.fill('input[name=password]', 'staff only')
    await Promise.all([page.waitForURL(`${target}?floor=3`), page.press('input[name=password]', 'Enter')])
    expect(await page.textContent('h1')).toBe('Staff handbook')
    expect(await page.textContent('#where')).toBe('/handbook?floor=3')
    // No CSP violation on the way (the form's redirect leaves the site); the 401 is logged as a failed load.
    expect(errors.filter((e) => !e.includes('401'))).toEqual([])
    await context.close()
    await server.running.scans.flush()
    expect((await client.get(`/qr-codes/${code.id}`)).body.data.totalScans).toBe(1)
  })
})
