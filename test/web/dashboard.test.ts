import { readFile } from 'node:fs/promises'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { QrCode } from '@qrctl/contract'
import { sessions } from '@qrctl/server'
import type { Browser, BrowserContext, Download, Page, Response } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { missing, missingCommand } from '../../vitest.requirements.js'
import { CHROMIUM_PATH, DESKTOP, hasChromium, launchBrowser } from '../browser/browser.js'
import { api, createCode, PHONE_UA } from '../showcases/helpers.js'
import type { TestServer } from '../support/server.js'
import { signIn, startDashboardServer, type Trouble, watch } from './dashboard.js'
import { decodePdf, decodePng, decodeSvg, logoPng } from './decode.js'

/*
 * DESIGN §19 and issue #21.3: every flow of the dashboard, driven in Chromium the way a person
 * would, through the exact accessible names the design gives. One server and one browser for
 * the file; each flow starts from a page load of its own.
 */

const noChromium = missing(
  `chromium (${CHROMIUM_PATH})`,
  hasChromium,
  'apt-get install chromium, or point CHROMIUM_PATH at a Chromium binary',
)
const noPdftoppm = missingCommand('pdftoppm', 'poppler-utils')

/** How long a poll may wait for the page to catch up (a ceiling, not a timing check). */
const POLL_MS = 20_000

const noTrouble: Trouble = { consoleErrors: [], pageErrors: [], cspViolations: [] }

/** A webhook endpoint on loopback that answers 200 and keeps what it received. */
async function startReceiver() {
  const received: { headers: IncomingHttpHeaders; body: string }[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => {
      body += chunk
    })
    req.on('end', () => {
      received.push({ headers: req.headers, body })
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end('thanks')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/qrctl`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

async function bytesOf(download: Download): Promise<Buffer> {
  const path = await download.path()
  return readFile(path)
}

describe.skipIf(noChromium)(`the dashboard in Chromium (${CHROMIUM_PATH})`, () => {
  let server: TestServer
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let trouble: Trouble

  beforeAll(async () => {
    server = await startDashboardServer()
    browser = await launchBrowser()
    context = await browser.newContext({ ...DESKTOP, timezoneId: 'UTC', acceptDownloads: true })
    trouble = await watch(context)
    page = await context.newPage()
    await signIn(page, server)
  })
  afterAll(async () => {
    await context?.close()
    await browser?.close()
    await server?.close()
  })
  // No page of any flow may log an error, throw, or be refused anything by its CSP.
  afterEach(() => {
    const seen = { ...trouble }
    for (const list of Object.values(trouble)) list.splice(0)
    expect(seen).toEqual(noTrouble)
  })
  /** Takes the console lines of API calls that were meant to fail (Chromium logs every 4xx fetch). */
  const expectedFailures = (status: number) => {
    const lines = trouble.consoleErrors.splice(0)
    const line = `Failed to load resource: the server responded with a status of ${status}`
    expect(lines.length).toBeGreaterThan(0)
    expect(lines.filter((text) => !text.includes(line))).toEqual([])
  }

  const open = async (path: string) => {
    await page.goto(`${server.baseUrl}${path}`)
    await page.getByRole('heading', { level: 1 }).waitFor()
  }
  const codeByName = async (name: string): Promise<QrCode> => {
    const list = await api<{ data: QrCode[] }>(server, 'GET', `/qr-codes?search=${encodeURIComponent(name)}`)
    const code = list.body.data.find((c) => c.name === name)
    if (!code) throw new Error(`no code named ${name}`)
    return code
  }

  describe('signing in', () => {
    it('signs in with the form ("API key", "Sign in") and shows one nav with every link and one main', async () => {
      const own = await browser.newContext(DESKTOP)
      const fresh = await own.newPage()
      try {
        await fresh.goto(`${server.baseUrl}/app/codes/new`)
        // Signed out, any /app page leads to the sign-in page.
        expect(new URL(fresh.url()).pathname).toBe('/app/login')
        await fresh.getByLabel('API key').fill(`qrk_${'x'.repeat(40)}`)
        await fresh.getByRole('button', { name: 'Sign in' }).click()
        await expect
          .poll(() => fresh.getByRole('alert').textContent(), { timeout: POLL_MS })
          .toMatch(/not valid/)
        await fresh.getByLabel('API key').fill(server.apiKey)
        await fresh.getByRole('button', { name: 'Sign in' }).click()
        await fresh.waitForURL(`${server.baseUrl}/app`)
        await fresh.getByRole('heading', { level: 1, name: 'QR codes' }).waitFor()
        expect(await fresh.getByRole('navigation').count()).toBe(1)
        expect(await fresh.getByRole('main').count()).toBe(1)
        const nav = fresh.getByRole('navigation')
        for (const name of ['QR codes', 'Analytics', 'Showcases', 'Webhooks', 'API keys', 'New QR code'])
          expect(await nav.getByRole('link', { name, exact: true }).count()).toBe(1)
        expect(await nav.getByRole('button', { name: 'Sign out' }).count()).toBe(1)
      } finally {
        await own.close()
      }
    })

    it('signs in once with a login link; the used link shows the sign-in page with an error', async () => {
      const link = await sessions.createLoginLink(server.ctx, server.accountId)
      const own = await browser.newContext(DESKTOP)
      const fresh = await own.newPage()
      try {
        await fresh.goto(link.url)
        await fresh.waitForURL(`${server.baseUrl}/app`)
        await fresh.getByRole('heading', { level: 1, name: 'QR codes' }).waitFor()
        const again = await (await browser.newContext(DESKTOP)).newPage()
        await again.goto(link.url)
        expect(new URL(again.url()).pathname).toBe('/app/login')
        expect(await again.getByRole('alert').textContent()).toMatch(/expired|already used|not valid/)
        await again.context().close()
      } finally {
        await own.close()
      }
    })
  })

  describe('creating a code', () => {
    it('creates a dynamic code with a logo and a frame from the designer, previewed live by the server', async () => {
      await open('/app')
      await page.getByRole('link', { name: 'New QR code' }).click()
      await page.getByRole('heading', { level: 1, name: 'New QR code' }).waitFor()
      const previews: Response[] = []
      page.on('response', (response) => {
        if (new URL(response.url()).pathname.startsWith('/api/v1/qr-codes/preview')) previews.push(response)
      })
      await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Spring menu')
      await page.getByRole('combobox', { name: 'Content type' }).selectOption('url')
      await page.getByRole('textbox', { name: 'Content', exact: true }).fill('https://bistro.example/menu')
      await page.getByRole('radio', { name: 'Dynamic' }).check()
      await page
        .getByRole('textbox', { name: 'Target URL', exact: true })
        .fill('https://bistro.example/spring')

      const preview = page.getByRole('img', { name: 'Live preview of the QR code' })
      await expect.poll(() => preview.getAttribute('src'), { timeout: POLL_MS }).toMatch(/^blob:/)
      const plainSrc = await preview.getAttribute('src')

      await page.getByLabel('Logo', { exact: true }).setInputFiles({
        name: 'bistro.png',
        mimeType: 'image/png',
        buffer: await logoPng(),
      })
      await page.getByText(/Logo: bistro\.png/).waitFor()
      await page.getByRole('combobox', { name: 'Frame', exact: true }).selectOption('banner')
      await page.getByRole('textbox', { name: 'Frame text', exact: true }).fill('Scan for the menu')
      // The preview is redrawn by the server with the logo and the frame.
      await expect.poll(() => preview.getAttribute('src'), { timeout: POLL_MS }).not.toBe(plainSrc)
      await expect
        .poll(() => page.getByText('the server checked that it scans').count(), { timeout: POLL_MS })
        .toBe(1)
      // The image shown is the server's answer: the last preview the page asked for scans.
      const last = previews.at(-1)
      expect(last?.status()).toBe(200)
      expect(decodePng(await (last as Response).body())).toMatch(/\/r\/[0-9A-Za-z]{7}$/)

      await page.getByRole('button', { name: 'Create' }).click()
      await page.getByRole('heading', { level: 1, name: 'Spring menu' }).waitFor()
      await page.getByRole('img', { name: 'QR code for Spring menu' }).waitFor()
      const code = await codeByName('Spring menu')
      expect(code.type).toBe('dynamic')
      expect(code.targetUrl).toBe('https://bistro.example/spring')
      expect(code.style?.logo?.assetId).toMatch(/^[0-9a-f-]{36}$/)
      expect(code.style?.frame).toMatchObject({ style: 'banner', text: 'Scan for the menu' })
    })

    it('shows the server’s field errors beside the fields and in the alert, and creates nothing', async () => {
      await open('/app/codes/new')
      await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Broken')
      await page.getByRole('textbox', { name: 'Content', exact: true }).fill('not a url')
      await page.getByRole('button', { name: 'Create' }).click()
      const alert = page.getByRole('alert')
      await expect.poll(() => alert.textContent(), { timeout: POLL_MS }).toMatch(/content/i)
      const content = page.getByRole('textbox', { name: 'Content', exact: true })
      expect(await content.getAttribute('aria-invalid')).toBe('true')
      const described = (await content.getAttribute('aria-describedby')) ?? ''
      const note = await page.locator(`[id="${described.split(' ').at(-1)}"]`).textContent()
      expect(note).toMatch(/url/i)
      expect(new URL(page.url()).pathname).toBe('/app/codes/new')
      const list = await api<{ total: number }>(server, 'GET', '/qr-codes?search=Broken')
      expect(list.body.total).toBe(0)
      expectedFailures(400)
    })
  })

  describe("a code's page", () => {
    it.skipIf(noPdftoppm)(
      'downloads PNG, SVG and PDF, named after the code, each decoding to the short link',
      async () => {
        const code = await createCode(server, undefined, {
          name: 'Window poster',
          contentType: 'url',
          content: 'https://shop.example/poster',
          type: 'dynamic',
        })
        await open(`/app/codes/${code.id}`)
        await page.getByRole('heading', { level: 1, name: 'Window poster' }).waitFor()
        const decoders = { PNG: decodePng, SVG: decodeSvg, PDF: decodePdf }
        for (const [label, decode] of Object.entries(decoders)) {
          const link = page.getByRole('link', { name: `Download ${label}` })
          expect(await link.getAttribute('href')).toMatch(/^blob:/)
          const [download] = await Promise.all([page.waitForEvent('download'), link.click()])
          expect(download.suggestedFilename()).toBe(`Window-poster.${label.toLowerCase()}`)
          expect(await decode(await bytesOf(download))).toBe(code.shortUrl)
        }
      },
    )

    it('changes the target URL, and the redirect follows', async () => {
      const code = await createCode(server, undefined, {
        name: 'Moving target',
        contentType: 'url',
        content: 'https://old.example/',
        type: 'dynamic',
      })
      await open(`/app/codes/${code.id}`)
      const target = page.getByRole('textbox', { name: 'Target URL', exact: true })
      await target.fill('https://new.example/landing')
      await page.getByRole('button', { name: 'Save' }).click()
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
      const answer = await fetch(`${server.baseUrl}/r/${code.shortCode}`, { redirect: 'manual' })
      expect(answer.status).toBe(302)
      expect(answer.headers.get('location')).toBe('https://new.example/landing')
    })

    it('adds a rule; a scan that meets it goes to its URL and shows in "Scans per day"', async () => {
      const code = await createCode(server, undefined, {
        name: 'Flyer code',
        contentType: 'url',
        content: 'https://cafe.example/',
        type: 'dynamic',
      })
      await open(`/app/codes/${code.id}`)
      const figure = page.getByRole('figure', { name: 'Scans per day' })
      await figure.getByText('0 scans', { exact: true }).waitFor()

      await page.getByRole('button', { name: 'Add rule' }).click()
      await page.getByRole('textbox', { name: 'Rule 1 target URL' }).fill('https://cafe.example/flyer')
      await page.getByRole('combobox', { name: 'Rule 1 condition 1 type' }).selectOption('query')
      await page.getByRole('textbox', { name: 'Rule 1 condition 1 parameter' }).fill('src')
      await page.getByRole('textbox', { name: 'Rule 1 condition 1 value' }).fill('flyer')
      await page.getByRole('button', { name: 'Save' }).click()
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()

      const scan = await fetch(`${server.baseUrl}/r/${code.shortCode}?src=flyer`, {
        redirect: 'manual',
        headers: { 'user-agent': PHONE_UA },
      })
      expect(scan.status).toBe(302)
      expect(scan.headers.get('location')).toBe('https://cafe.example/flyer')
      const other = await fetch(`${server.baseUrl}/r/${code.shortCode}`, {
        redirect: 'manual',
        method: 'HEAD',
      })
      expect(other.headers.get('location')).toBe('https://cafe.example/')

      // Scans are written in batches at least once a second: reload until it is counted.
      await expect
        .poll(
          async () => {
            await page.reload()
            return figure.getByText(/^\d+ scans?$/).textContent()
          },
          { timeout: POLL_MS },
        )
        .toBe('1 scan')
      const today = new Date().toISOString().slice(0, 10)
      await figure.getByText('Scans per day as a table').click()
      const row = figure.getByRole('row').filter({ has: page.locator(`time[datetime="${today}"]`) })
      expect(await row.getByRole('cell').textContent()).toBe('1')
      expect(await page.getByRole('img', { name: /Chart of scans per day/ }).count()).toBe(1)
    })
  })

  describe('the code list', () => {
    it('filters by tag and search, and deactivates the selected codes in bulk', async () => {
      for (const name of ['Bulk A', 'Bulk B', 'Bulk C'])
        await createCode(server, undefined, {
          name,
          tags: ['bulk-spring'],
          content: `https://bulk.example/${name.replace(' ', '-')}`,
        })
      await createCode(server, undefined, { name: 'Bulk other', content: 'https://bulk.example/other' })
      await open('/app')
      const rows = page.locator('table.codes tbody tr')
      await page.getByRole('combobox', { name: 'Tag' }).selectOption('bulk-spring')
      await expect.poll(() => rows.count(), { timeout: POLL_MS }).toBe(3)
      await page.getByRole('searchbox', { name: 'Search' }).fill('Bulk B')
      await expect.poll(() => rows.count(), { timeout: POLL_MS }).toBe(1)
      expect(new URL(page.url()).searchParams.get('search')).toBe('Bulk B')
      await page.getByRole('searchbox', { name: 'Search' }).fill('')
      await expect.poll(() => rows.count(), { timeout: POLL_MS }).toBe(3)

      await page.getByRole('checkbox', { name: 'Select all on this page' }).check()
      await page.getByText('3 codes selected').waitFor()
      await page.getByRole('button', { name: 'Deactivate' }).click()
      await page.getByRole('status').filter({ hasText: '3 codes deactivated.' }).waitFor()
      for (const name of ['Bulk A', 'Bulk B', 'Bulk C']) expect((await codeByName(name)).isActive).toBe(false)
      expect((await codeByName('Bulk other')).isActive).toBe(true)
      await page.getByRole('combobox', { name: 'Status' }).selectOption('false')
      await expect.poll(() => rows.count(), { timeout: POLL_MS }).toBe(3)
    })

    it('uploads a CSV: shows each bad row’s errors, then creates the valid rows with a progress bar', async () => {
      await open('/app')
      await page.getByRole('link', { name: 'Upload CSV' }).click()
      await page.getByRole('heading', { level: 1, name: 'Upload CSV' }).waitFor()
      const csv = [
        'name,content_type,content,type,target_url',
        'CSV flyer A,url,https://csv.example/a,dynamic,',
        'CSV flyer B,url,not a url,dynamic,',
        'CSV note,text,Hello there,static,',
      ].join('\n')
      await page
        .getByLabel('CSV file')
        .setInputFiles({ name: 'codes.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
      await expect
        .poll(() => page.getByRole('alert').textContent(), { timeout: POLL_MS })
        .toMatch(/1 row of the file has errors/)
      const bad = page.getByRole('row').filter({ hasText: 'CSV flyer B' })
      expect(await bad.textContent()).toMatch(/content/i)
      expect(await bad.getByRole('cell').first().textContent()).toBe('3')
      await page.getByRole('button', { name: 'Upload 2 valid rows' }).click()
      await page.getByText('2 codes created.', { exact: true }).first().waitFor()
      const progress = page.getByRole('progressbar', { name: 'Upload progress' })
      expect(await progress.getAttribute('value')).toBe('2')
      expect((await codeByName('CSV flyer A')).type).toBe('dynamic')
      expect((await codeByName('CSV note')).type).toBe('static')
      const list = await api<{ total: number }>(server, 'GET', '/qr-codes?search=CSV%20flyer%20B')
      expect(list.body.total).toBe(0)
    })
  })

  describe('analytics', () => {
    it('shows every code’s scans and exports the window as CSV through the link', async () => {
      const code = await createCode(server, undefined, {
        name: 'Export me',
        content: 'https://export.example/',
        type: 'dynamic',
      })
      await fetch(`${server.baseUrl}/r/${code.shortCode}`, {
        redirect: 'manual',
        headers: { 'user-agent': PHONE_UA },
      })
      await open('/app/analytics')
      const figure = page.getByRole('figure', { name: 'Scans per day' })
      await expect
        .poll(
          async () => {
            await page.reload()
            return page
              .getByRole('region', { name: 'Top codes' })
              .getByRole('link', { name: 'Export me' })
              .count()
          },
          { timeout: POLL_MS },
        )
        .toBe(1)
      expect(await figure.getByText(/^\d+ scans?$/).textContent()).toMatch(/scan/)
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Export CSV' }).click(),
      ])
      expect(download.suggestedFilename()).toMatch(/^scans-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/)
      const lines = (await bytesOf(download)).toString('utf8').trim().split('\n')
      expect(lines[0]).toMatch(/^scannedAt,qrCodeId,shortCode,name,/)
      expect(lines.some((line) => line.includes(code.id))).toBe(true)
    })
  })

  describe('API keys', () => {
    it('creates a key (secret once, read-only, Copy) and revokes it', async () => {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl })
      await open('/app/api-keys')
      await page.getByRole('button', { name: 'Create key' }).click()
      await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Partner feed')
      await page.getByRole('button', { name: 'Create', exact: true }).click()
      const secret = page.getByRole('textbox', { name: 'Secret' })
      await secret.waitFor()
      expect(await secret.getAttribute('readonly')).not.toBeNull()
      const value = await secret.inputValue()
      expect(value).toMatch(/^qrk_[A-Za-z0-9]{40}$/)
      await page.getByRole('button', { name: 'Copy' }).click()
      await page.getByText('Copied.').waitFor()
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(value)
      expect((await api(server, 'GET', '/qr-codes?limit=1', { key: value })).status).toBe(200)

      await page.getByRole('button', { name: 'Revoke Partner feed' }).click()
      await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click()
      await page.getByRole('status').filter({ hasText: 'is revoked' }).waitFor()
      expect(await page.getByRole('row').filter({ hasText: 'Partner feed' }).count()).toBe(0)
      expect((await api(server, 'GET', '/qr-codes?limit=1', { key: value })).status).toBe(401)
    })
  })

  describe('webhooks', () => {
    it('creates a webhook, sends a test event and reads it in the delivery log', async () => {
      const receiver = await startReceiver()
      try {
        await open('/app/webhooks')
        await page.getByRole('textbox', { name: 'URL', exact: true }).fill(receiver.url)
        await page.getByRole('textbox', { name: 'Description' }).fill('Order system')
        await page.getByRole('button', { name: 'Create webhook' }).click()
        const secret = page.getByRole('textbox', { name: 'Signing secret' })
        await secret.waitFor()
        expect(await secret.inputValue()).toMatch(/^whsec_/)
        await page.getByRole('link', { name: `Open ${receiver.url}` }).click()
        await page.getByRole('heading', { level: 1, name: `Webhook ${receiver.url}` }).waitFor()
        await page.getByRole('button', { name: 'Send test event' }).click()
        const log = page.getByRole('region', { name: 'Delivery log' })
        await expect
          .poll(
            async () => {
              await page.getByRole('button', { name: 'Refresh' }).click()
              return log
                .getByRole('row')
                .filter({ hasText: 'webhook.test' })
                .textContent({ timeout: 2000 })
                .catch(() => '')
            },
            { timeout: POLL_MS },
          )
          .toMatch(/succeeded/)
        expect(await log.getByRole('row').filter({ hasText: 'webhook.test' }).textContent()).toMatch(/200/)
        // "Redeliver" makes one more attempt of the same delivery.
        await log.getByRole('button', { name: /^Redeliver webhook\.test/ }).click()
        await page.getByRole('status').filter({ hasText: 'Redelivered' }).waitFor()
        const attempts = log.getByRole('row').filter({ hasText: 'webhook.test' }).getByRole('cell').nth(1)
        await expect
          .poll(
            async () => {
              await page.getByRole('button', { name: 'Refresh' }).click()
              return attempts.textContent()
            },
            { timeout: POLL_MS },
          )
          .toBe('2')
        expect(receiver.received.some((r) => JSON.parse(r.body).type === 'webhook.test')).toBe(true)
        expect(receiver.received[0]?.headers['webhook-signature']).toMatch(/^v1,/)
      } finally {
        await receiver.close()
      }
    })
  })

  describe('signing out', () => {
    it('"Sign out" ends the session: the next /app request leads to the sign-in page', async () => {
      await open('/app')
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.waitForURL(`${server.baseUrl}/app/login`)
      await page.goto(`${server.baseUrl}/app/analytics`)
      expect(new URL(page.url()).pathname).toBe('/app/login')
      await page.getByRole('button', { name: 'Sign in' }).waitFor()
    })
  })
})
