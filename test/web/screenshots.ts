/**
 * Takes the docs' screenshots of the dashboard: every page at 390 and 1280 px, into
 * docs/dashboard/, over a believable account (codes, tags, 30 days of scans, a showcase, a
 * webhook with deliveries). Run from the repository root after `npm run build`:
 *   npx tsx --conditions=source test/web/screenshots.ts
 */
import { writeFileSync } from 'node:fs'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { QrCode, Webhook } from '@qrctl/contract'
import { importScans, ManualClock } from '@qrctl/server'
import type { Page } from 'playwright-core'
import sharp from 'sharp'
import { DESKTOP, launchBrowser, PHONE } from '../browser/browser.js'
import { api } from '../showcases/helpers.js'
import { startServer } from '../support/server.js'
import { signIn } from './dashboard.js'
import { logoPng } from './decode.js'

const MAX_BYTES = 160 * 1024
const MAX_HEIGHT = 2400
const outDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'dashboard')
await mkdir(outDir, { recursive: true })

const now = new Date()
const clock = new ManualClock(new Date(now.getTime() - 45 * 86_400_000))
const server = await startServer({
  clock,
  env: { RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_ALLOW_HOSTS: '127.0.0.1' },
})
const hooks = createServer((_req, res) => res.end('ok'))
await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve))
const browser = await launchBrowser()

async function create(body: Record<string, unknown>): Promise<QrCode> {
  const answer = await api<{ data: QrCode }>(server, 'POST', '/qr-codes', { body })
  if (answer.status !== 201) throw new Error(`create: ${JSON.stringify(answer.body)}`)
  return answer.body.data
}

try {
  // The codes exist for 45 days, so a month of imported scans counts.
  const logo = await api<{ data: { id: string } }>(server, 'POST', '/assets', {
    body: { name: 'bistro.png', contentType: 'image/png', data: (await logoPng()).toString('base64') },
  })
  const menu = await create({
    name: 'Bistro lunch menu',
    contentType: 'url',
    content: 'https://bistro.example/lunch',
    type: 'dynamic',
    tags: ['menu', 'bistro'],
    style: {
      moduleShape: 'rounded',
      finderShape: 'rounded',
      finderColor: '#9a3412',
      logo: { assetId: logo.body.data.id, size: 0.2 },
      frame: { style: 'banner', text: 'Scan for the menu', color: '#9a3412' },
    },
    rules: [
      { targetUrl: 'https://bistro.example/lunch/de', conditions: [{ type: 'language', values: ['de'] }] },
    ],
  })
  const poster = await create({
    name: 'Spring sale window poster',
    contentType: 'url',
    content: 'https://shop.example/spring',
    type: 'dynamic',
    tags: ['spring', 'shop'],
  })
  const card = await create({
    name: 'Table card Wi-Fi',
    contentType: 'wifi',
    content: 'WIFI:T:WPA;S:Bistro Guest;P:espresso42;;',
    tags: ['bistro'],
  })
  await create({
    name: 'Business card',
    contentType: 'vcard',
    content: 'BEGIN:VCARD\nVERSION:3.0\nFN:Ada Lovelace\nEND:VCARD',
  })
  await create({
    name: 'Event flyer',
    contentType: 'url',
    content: 'https://events.example/neon',
    type: 'dynamic',
    tags: ['events'],
  })
  const old = await create({
    name: 'Winter menu 2026',
    contentType: 'url',
    content: 'https://bistro.example/winter',
    type: 'dynamic',
  })
  await api(server, 'DELETE', `/qr-codes/${old.id}`)
  clock.set(now)

  // 30 days of scans, more at weekends, from a few places and devices.
  const places = [
    ['DE', 'Berlin'],
    ['DE', 'Hamburg'],
    ['AT', 'Vienna'],
    ['FR', 'Paris'],
    ['US', 'New York'],
  ]
  const rows = ['scannedAt,qrCodeId,shortCode,name,device,browser,os,country,city,referrer,visitorId']
  let visitor = 0
  for (let day = 29; day >= 0; day--) {
    const date = new Date(now.getTime() - day * 86_400_000)
    const weekend = [0, 6].includes(date.getUTCDay())
    const count = Math.round((weekend ? 18 : 9) + 6 * Math.sin(day / 3) + (29 - day) / 3)
    for (let i = 0; i < count; i++) {
      const code = [menu, menu, poster, menu, poster][i % 5] as QrCode
      const [country, city] = places[(i * 7 + day) % places.length] as [string, string]
      const at = new Date(
        Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate(), 8 + (i % 12), (i * 13) % 60),
      )
      if (at > now) continue
      const device = i % 5 === 4 ? 'desktop' : i % 7 === 3 ? 'tablet' : 'mobile'
      const os = device === 'desktop' ? 'Windows' : i % 2 ? 'iOS' : 'Android'
      const browserName = os === 'iOS' ? 'Mobile Safari' : 'Chrome'
      const referrer = i % 6 === 0 ? 'instagram.com' : 'direct'
      visitor = (visitor + 1) % 170
      rows.push(
        [
          at.toISOString(),
          code.id,
          code.shortCode,
          code.name,
          device,
          browserName,
          os,
          country,
          city,
          referrer,
          `v${visitor}`,
        ].join(','),
      )
    }
  }
  const csv = join(tmpdir(), `qrctl-shots-${process.pid}.csv`)
  await writeFile(csv, `${rows.join('\n')}\n`)
  await importScans(server.ctx, server.accountId, csv)
  await rm(csv)

  await api(server, 'POST', '/showcases', {
    body: { qrCodeId: menu.id, title: 'Bistro lunch', template: 'modern', description: 'Today’s lunch menu' },
  })
  const hook = await api<{ data: Webhook }>(server, 'POST', '/webhooks', {
    body: {
      url: `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/qrctl`,
      events: ['scan.created', 'qr_code.updated'],
      description: 'Order system',
    },
  })
  await api(server, 'POST', `/webhooks/${hook.body.data.id}/test`)
  await api(server, 'POST', `/webhooks/${hook.body.data.id}/test`)
  await api(server, 'POST', '/api-keys', {
    body: { name: 'Print shop import', scope: 'write', environment: 'production' },
  })

  const pages: [string, string, (page: Page) => Promise<void>][] = [
    ['codes', '/app', async () => {}],
    [
      'new-code',
      '/app/codes/new',
      async (page) => {
        await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Summer terrace menu')
        await page
          .getByRole('textbox', { name: 'Content', exact: true })
          .fill('https://bistro.example/terrace')
        await page.getByRole('combobox', { name: 'Module shape' }).selectOption('dot')
        await page.getByRole('combobox', { name: 'Frame', exact: true }).selectOption('box')
        await page.getByRole('textbox', { name: 'Frame text', exact: true }).fill('Scan to order')
        await page.getByText('the server checked that it scans').waitFor()
      },
    ],
    [
      'code',
      `/app/codes/${menu.id}`,
      async (page) => {
        await page
          .getByRole('img', { name: /Chart of scans per day/ })
          .locator('canvas')
          .first()
          .waitFor()
      },
    ],
    [
      'upload',
      '/app/codes/upload',
      async (page) => {
        const file =
          'name,content_type,content,tags\nMenu card,url,https://bistro.example/menu,menu\nWi-Fi sign,wifi,WIFI:T:WPA;S:Cafe;P:espresso42;;,\nBroken row,url,bistro dot example,menu\n'
        await page
          .getByLabel('CSV file')
          .setInputFiles({ name: 'codes.csv', mimeType: 'text/csv', buffer: Buffer.from(file) })
        await page.getByRole('button', { name: /^Upload \d/ }).waitFor()
      },
    ],
    ['deleted', '/app/codes/deleted', async () => {}],
    [
      'analytics',
      '/app/analytics',
      async (page) => {
        await page
          .getByRole('img', { name: /Chart of scans per day/ })
          .locator('canvas')
          .first()
          .waitFor()
      },
    ],
    ['showcases', '/app/showcases', async () => {}],
    ['webhooks', '/app/webhooks', async () => {}],
    [
      'webhook',
      `/app/webhooks/${hook.body.data.id}`,
      async (page) => {
        await page.getByRole('region', { name: 'Delivery log' }).getByRole('row').nth(1).waitFor()
      },
    ],
    ['api-keys', '/app/api-keys', async () => {}],
  ]

  const sizes: string[] = []
  for (const [width, device] of [
    [390, PHONE],
    [1280, DESKTOP],
  ] as const) {
    const context = await browser.newContext(device)
    const page = await context.newPage()
    const shoot = async (name: string) => {
      await page.waitForLoadState('networkidle')
      // Wait for the chart's canvas to be painted.
      await page.evaluate(
        'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))',
      )
      const height = Math.min(MAX_HEIGHT, await page.evaluate('document.documentElement.scrollHeight'))
      const raw = await page.screenshot({ fullPage: true, clip: { x: 0, y: 0, width, height } })
      const file = join(outDir, `${name}-${width}.png`)
      const png = await sharp(raw)
        .png({ palette: true, quality: 90, compressionLevel: 9, effort: 10 })
        .toBuffer()
      writeFileSync(file, png)
      sizes.push(`${name}-${width}.png ${Math.round(png.length / 1024)} KB`)
      if (png.length > MAX_BYTES)
        throw new Error(`${name}-${width}.png is ${png.length} bytes, over ${MAX_BYTES}`)
    }
    await page.goto(`${server.baseUrl}/app/login`)
    await shoot('sign-in')
    await signIn(page, server)
    for (const [name, path, prepare] of pages) {
      await page.goto(`${server.baseUrl}${path}`, { waitUntil: 'networkidle' })
      await page.getByRole('heading', { level: 1 }).waitFor()
      await prepare(page)
      await shoot(name)
    }
    await context.close()
  }
  console.log(sizes.join('\n'))
  void card
} finally {
  await browser.close()
  await new Promise((resolve) => hooks.close(resolve))
  await server.close()
}
