import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { AxeBuilder } from '@axe-core/playwright'
import type { QrCode, Showcase, Webhook } from '@qrctl/contract'
import type { Browser, BrowserContext, BrowserContextOptions, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { missing } from '../../vitest.requirements.js'
import { CHROMIUM_PATH, DESKTOP, hasChromium, launchBrowser, PHONE } from '../browser/browser.js'
import { api, createCode, PHONE_UA } from '../showcases/helpers.js'
import type { TestServer } from '../support/server.js'
import { signIn, startDashboardServer, type Trouble, watch } from './dashboard.js'

/*
 * Issue #21.2 and #21.4: the session never leaves the cookie, and every page holds up: axe-core,
 * keyboard only, 390 px wide, the first load's JavaScript (measured from the network), and no
 * console error or CSP violation anywhere.
 */

const noChromium = missing(
  `chromium (${CHROMIUM_PATH})`,
  hasChromium,
  'apt-get install chromium, or point CHROMIUM_PATH at a Chromium binary',
)

/** Gzipped JavaScript a first page load may fetch (DESIGN §19). */
const JS_BUDGET_BYTES = 150 * 1024

/** Every page of the dashboard, by the name its tests give it. */
const PAGE_NAMES = [
  'the code list',
  'a new code',
  'a code',
  'the CSV upload',
  'the deleted codes',
  'analytics',
  'the showcases',
  'the webhooks',
  'a webhook',
  'the API keys',
  'an unknown page',
] as const
type PageName = (typeof PAGE_NAMES)[number]

const noTrouble: Trouble = { consoleErrors: [], pageErrors: [], cspViolations: [] }

describe.skipIf(noChromium)(`the dashboard's quality bar in Chromium (${CHROMIUM_PATH})`, () => {
  let server: TestServer
  let browser: Browser
  let hooks: Server
  let code: QrCode
  let webhook: Webhook
  /** Every page of the dashboard: its path and the heading it shows. */
  let pages: Record<PageName, [string, string]>
  /** The signed-in state (the session cookie), for fresh contexts. */
  let storageState: Awaited<ReturnType<BrowserContext['storageState']>>

  beforeAll(async () => {
    server = await startDashboardServer()
    browser = await launchBrowser()
    hooks = createServer((_req, res) => res.end('ok'))
    await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve))
    // Something on every page: codes with tags and scans, a deleted one, a showcase, a webhook with a delivery.
    code = await createCode(server, undefined, {
      name: 'Autumn menu',
      content: 'https://bistro.example/autumn',
      type: 'dynamic',
      tags: ['menu', 'autumn'],
    })
    await createCode(server, undefined, {
      name: 'Table card',
      content: 'https://bistro.example/table',
      tags: ['menu'],
    })
    const gone = await createCode(server, undefined, {
      name: 'Old flyer',
      content: 'https://bistro.example/old',
    })
    await api(server, 'DELETE', `/qr-codes/${gone.id}`)
    for (let i = 0; i < 3; i++)
      await fetch(`${server.baseUrl}/r/${code.shortCode}`, {
        redirect: 'manual',
        headers: { 'user-agent': PHONE_UA },
      })
    await api<{ data: Showcase }>(server, 'POST', '/showcases', {
      body: { qrCodeId: code.id, title: 'Bistro autumn' },
    })
    const hook = await api<{ data: Webhook }>(server, 'POST', '/webhooks', {
      body: { url: `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/in`, events: ['*'] },
    })
    webhook = hook.body.data
    await api(server, 'POST', `/webhooks/${webhook.id}/test`)
    pages = {
      'the code list': ['/app', 'QR codes'],
      'a new code': ['/app/codes/new', 'New QR code'],
      'a code': [`/app/codes/${code.id}`, 'Autumn menu'],
      'the CSV upload': ['/app/codes/upload', 'Upload CSV'],
      'the deleted codes': ['/app/codes/deleted', 'Deleted QR codes'],
      analytics: ['/app/analytics', 'Analytics'],
      'the showcases': ['/app/showcases', 'Showcases'],
      'the webhooks': ['/app/webhooks', 'Webhooks'],
      'a webhook': [`/app/webhooks/${webhook.id}`, `Webhook ${webhook.url}`],
      'the API keys': ['/app/api-keys', 'API keys'],
      'an unknown page': ['/app/no-such-page', 'Page not found'],
    }
    const context = await browser.newContext(DESKTOP)
    await signIn(await context.newPage(), server)
    storageState = await context.storageState()
    await context.close()
  })
  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => hooks?.close(resolve))
    await server?.close()
  })

  /** A signed-in context (the session cookie only), watched for console errors and CSP violations. */
  async function signedIn(
    device: BrowserContextOptions,
  ): Promise<{ context: BrowserContext; trouble: Trouble }> {
    const context = await browser.newContext({ ...device, storageState })
    return { context, trouble: await watch(context) }
  }

  /** Loads a page and waits until its heading is there and the network is quiet. */
  async function load(page: Page, path: string, heading: string): Promise<void> {
    await page.goto(`${server.baseUrl}${path}`, { waitUntil: 'networkidle' })
    await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor()
    await page.waitForLoadState('networkidle')
  }

  async function seriousViolations(page: Page) {
    const results = await new AxeBuilder({ page }).analyze()
    return results.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }))
  }

  /*
   * One test per page and state, in one signed-in context per width: each has its own time, and a
   * failure names the page. They run in order; the last one signs out.
   */
  describe.each([
    ['1280', DESKTOP],
    ['390', PHONE],
  ])('axe-core at %s px', (width, device) => {
    let context: BrowserContext
    let trouble: Trouble
    let page: Page
    beforeAll(async () => {
      ;({ context, trouble } = await signedIn(device as BrowserContextOptions))
      page = await context.newPage()
    })
    afterAll(async () => {
      await context?.close()
    })

    it.each(PAGE_NAMES)('finds no serious or critical violation on %s', async (name) => {
      const [path, heading] = pages[name]
      await load(page, path, heading)
      if (name === 'a code') await page.getByText('Scans per day as a table').click()
      expect(await seriousViolations(page)).toEqual([])
    })

    it('finds none on the API keys page showing a new secret', async () => {
      await load(page, '/app/api-keys', 'API keys')
      await page.getByRole('button', { name: 'Create key' }).click()
      await page.getByRole('textbox', { name: 'Name', exact: true }).fill(`axe ${width}`)
      await page.getByRole('button', { name: 'Create', exact: true }).click()
      await page.getByRole('textbox', { name: 'Secret' }).waitFor()
      expect(await seriousViolations(page)).toEqual([])
    })

    it('finds none on a refused create with its field errors', async () => {
      await load(page, '/app/codes/new', 'New QR code')
      await page.getByRole('button', { name: 'Create' }).click()
      await page.getByRole('alert').getByText(/name/i).first().waitFor()
      expect(await seriousViolations(page)).toEqual([])
    })

    it('finds none on the sign-in page, signed out', async () => {
      await context.clearCookies()
      await page.goto(`${server.baseUrl}/app/login`)
      expect(await seriousViolations(page)).toEqual([])
    })

    it('logged no console error, page error or CSP violation on any of them', () => {
      // The refused create logged its 400s; nothing else may have logged anything.
      const unexpected = trouble.consoleErrors.filter((line) => !/status of 400 \(Bad Request\)/.test(line))
      expect({ ...trouble, consoleErrors: unexpected }).toEqual(noTrouble)
    })
  })

  it('never scrolls sideways at 390 px, on any page', async () => {
    const { context, trouble } = await signedIn(PHONE)
    try {
      const page = await context.newPage()
      const widths: Record<string, number> = {}
      for (const [path, heading] of Object.values(pages)) {
        await load(page, path, heading)
        widths[path] = await page.evaluate('document.documentElement.scrollWidth')
      }
      await context.clearCookies()
      await page.goto(`${server.baseUrl}/app/login`)
      widths['/app/login'] = await page.evaluate('document.documentElement.scrollWidth')
      expect(Object.entries(widths).filter(([, width]) => width > 390)).toEqual([])
      expect(trouble).toEqual(noTrouble)
    } finally {
      await context.close()
    }
  })

  it(`loads at most ${JS_BUDGET_BYTES / 1024} KiB of gzipped JavaScript on each first page load`, async () => {
    const measured: Record<string, number> = {}
    for (const [path, heading] of Object.values(pages)) {
      // A fresh context per page: an empty cache, as on a first visit.
      const { context, trouble } = await signedIn(DESKTOP)
      try {
        const page = await context.newPage()
        const scripts: { url: string; encoding: string | undefined; bytes: Promise<number> }[] = []
        page.on('response', (response) => {
          const type = response.headers()['content-type'] ?? ''
          if (!type.includes('javascript')) return
          scripts.push({
            url: response.url(),
            encoding: response.headers()['content-encoding'],
            bytes: response
              .finished()
              .then(() => response.request().sizes())
              .then((sizes) => sizes.responseBodySize),
          })
        })
        await load(page, path, heading)
        expect(scripts.length).toBeGreaterThan(0)
        for (const script of scripts) expect(script.encoding, script.url).toBe('gzip')
        const sizes = await Promise.all(scripts.map((script) => script.bytes))
        measured[path] = sizes.reduce((sum, bytes) => sum + bytes, 0)
        expect(trouble).toEqual(noTrouble)
      } finally {
        await context.close()
      }
    }
    console.log(
      `gzipped JavaScript per first page load (bytes): ${JSON.stringify(measured)}; budget ${JS_BUDGET_BYTES}`,
    )
    for (const bytes of Object.values(measured)) {
      expect(bytes).toBeGreaterThan(1000)
      expect(bytes).toBeLessThanOrEqual(JS_BUDGET_BYTES)
    }
  })

  it('works from the keyboard alone: sign in, then create a code', async () => {
    const context = await browser.newContext(DESKTOP)
    const trouble = await watch(context)
    try {
      const page = await context.newPage()
      /** Presses Tab until `target` has the focus (at most 80 times). */
      const tabTo = async (target: Locator) => {
        for (let i = 0; i < 80; i++) {
          if (
            await target.evaluate(
              (el) => el === (el.ownerDocument as { activeElement: unknown }).activeElement,
            )
          )
            return
          await page.keyboard.press('Tab')
        }
        throw new Error(`Tab never reached ${target}`)
      }
      await page.goto(`${server.baseUrl}/app/login`)
      await tabTo(page.getByLabel('API key'))
      await page.keyboard.type(server.apiKey)
      await page.keyboard.press('Enter')
      await page.getByRole('heading', { level: 1, name: 'QR codes' }).waitFor()

      await tabTo(page.getByRole('link', { name: 'New QR code' }))
      await page.keyboard.press('Enter')
      await page.getByRole('heading', { level: 1, name: 'New QR code' }).waitFor()
      await tabTo(page.getByRole('textbox', { name: 'Name', exact: true }))
      await page.keyboard.type('Keyboard code')
      await tabTo(page.getByRole('combobox', { name: 'Content type' }))
      await page.keyboard.press('ArrowDown') // URL → Text
      expect(await page.getByRole('combobox', { name: 'Content type' }).inputValue()).toBe('text')
      await tabTo(page.getByRole('textbox', { name: 'Content', exact: true }))
      await page.keyboard.type('Typed without a mouse')
      await tabTo(page.getByRole('radio', { name: 'Dynamic' }))
      await page.keyboard.press('ArrowLeft') // Dynamic → Static
      expect(await page.getByRole('radio', { name: 'Static' }).isChecked()).toBe(true)
      await tabTo(page.getByRole('combobox', { name: 'Module shape' }))
      await page.keyboard.press('ArrowDown') // square → rounded
      await tabTo(page.getByRole('button', { name: 'Create' }))
      await page.keyboard.press('Enter')
      await page.getByRole('heading', { level: 1, name: 'Keyboard code' }).waitFor()
      const list = await api<{ data: QrCode[] }>(server, 'GET', '/qr-codes?search=Keyboard%20code')
      expect(list.body.data[0]).toMatchObject({
        type: 'static',
        contentType: 'text',
        content: 'Typed without a mouse',
      })
      expect(list.body.data[0]?.style?.moduleShape).toBe('rounded')
      // The focus is visible where it lands: the new page's heading.
      expect(await page.evaluate('document.activeElement.tagName')).toBe('H1')
      expect(trouble).toEqual(noTrouble)
    } finally {
      await context.close()
    }
  })

  describe('the session', () => {
    it('leaves neither key nor session id in localStorage, sessionStorage, document.cookie or IndexedDB', async () => {
      const context = await browser.newContext(DESKTOP)
      try {
        const page = await context.newPage()
        await signIn(page, server)
        for (const [path, heading] of Object.values(pages)) await load(page, path, heading)
        const cookie = (await context.cookies()).find((c) => c.name === 'qrctl_session')
        expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' })
        const sessionId = cookie?.value as string
        expect(sessionId.length).toBeGreaterThanOrEqual(40)
        const held: string = await page.evaluate(`(async () => {
          const dump = (storage) => JSON.stringify(Object.entries(storage))
          const databases = await indexedDB.databases()
          const stores = []
          for (const info of databases) {
            const db = await new Promise((resolve, reject) => {
              const open = indexedDB.open(info.name)
              open.onsuccess = () => resolve(open.result)
              open.onerror = () => reject(open.error)
            })
            for (const name of db.objectStoreNames) {
              const all = await new Promise((resolve) => {
                const request = db.transaction(name).objectStore(name).getAll()
                request.onsuccess = () => resolve(request.result)
              })
              stores.push(JSON.stringify(all))
            }
            db.close()
          }
          return JSON.stringify({
            localStorage: dump(localStorage),
            sessionStorage: dump(sessionStorage),
            cookie: document.cookie,
            indexedDB: { databases: databases.map((d) => d.name), stores },
          })
        })()`)
        expect(held).not.toContain(server.apiKey)
        expect(held).not.toContain(sessionId)
        expect(JSON.parse(held)).toEqual({
          localStorage: '[]',
          sessionStorage: '[]',
          cookie: '',
          indexedDB: { databases: [], stores: [] },
        })
        // Nor is the key anywhere in the page itself.
        expect(await page.content()).not.toContain(server.apiKey)
      } finally {
        await context.close()
      }
    })

    it('a cross-site form post or fetch with the cookie but without the token changes nothing', async () => {
      // Another site: the same machine by another name (localhost is not 127.0.0.1's site).
      const evil = createServer((_req, res) => {
        const target = server.baseUrl
        res.writeHead(200, { 'content-type': 'text/html' })
        res.end(`<!doctype html><title>evil</title>
<form id="api" method="post" action="${target}/api/v1/qr-codes" enctype="text/plain">
<input name='{"name":"evil","contentType":"text","content":"x","pad":"' value='"}'></form>
<form id="logout" method="post" action="${target}/app/logout"></form>
<script>
fetch('${target}/api/v1/qr-codes', { method: 'POST', mode: 'no-cors', credentials: 'include',
  headers: { 'content-type': 'text/plain' }, body: '{"name":"evil","contentType":"text","content":"x"}' })
  .finally(() => { document.title = 'sent' })
</script>`)
      })
      await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve))
      const evilUrl = `http://localhost:${(evil.address() as AddressInfo).port}/`
      const context = await browser.newContext(DESKTOP)
      try {
        const page = await context.newPage()
        await signIn(page, server)
        const before = await api<{ total: number }>(server, 'GET', '/qr-codes?limit=1')

        const other = await context.newPage()
        await other.goto(evilUrl)
        await other.waitForFunction('document.title === "sent"')
        await Promise.all([
          other.waitForNavigation(),
          other.evaluate('document.getElementById("api").submit()'),
        ])
        await other.goto(evilUrl)
        await other.waitForFunction('document.title === "sent"')
        await Promise.all([
          other.waitForNavigation(),
          other.evaluate('document.getElementById("logout").submit()'),
        ])

        // From the dashboard's own origin too, the cookie without X-CSRF-Token is not a session.
        const sameOrigin = await page.evaluate(`fetch('/api/v1/qr-codes', {
          method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'no token', contentType: 'text', content: 'x' }),
        }).then((r) => r.status)`)
        expect(sameOrigin).toBe(401)

        const after = await api<{ total: number }>(server, 'GET', '/qr-codes?limit=1')
        expect(after.body.total).toBe(before.body.total)
        // The session survived the cross-site logout post: the dashboard still loads and works.
        await page.goto(`${server.baseUrl}/app/api-keys`)
        await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor()
        await page
          .getByRole('button', { name: /^Revoke / })
          .first()
          .waitFor()
      } finally {
        await context.close()
        await new Promise((resolve) => evil.close(resolve))
      }
    })
  })
})
