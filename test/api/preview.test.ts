import type { Style } from '@qrctl/contract'
import { Qrctl, QrctlUnscannableError, QrctlValidationError } from '@qrctl/sdk'
import { PNG } from 'pngjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { type Api, api, decodePng, dumpDatabase, expectError, expectNoLeak, UNLIMITED } from './helpers.js'

/** DESIGN §19's live preview: the server's own render of a design that is not saved. */

const DESIGN: Style = {
  moduleShape: 'dot',
  finderShape: 'rounded',
  gradient: { type: 'linear', colors: ['#1A237E', '#4A148C'], rotation: 90 },
  frame: { style: 'banner', text: 'Scan for the menu' },
}

/** A box frame pressed against a symbol with no quiet zone: no decoder finds the finders. */
const UNSCANNABLE: Style = { margin: 0, frame: { style: 'box', text: 'Scan' } }

const LOGO_TEXT = 'https://example.com/menus/spring-2026/table-4?lang=en&utm_source=poster'

/** A 64 × 64 PNG logo, one colour. */
function logoPng(): string {
  const png = new PNG({ width: 64, height: 64 })
  for (let i = 0; i < png.data.length; i += 4) png.data.set([200, 30, 30, 255], i)
  return PNG.sync.write(png).toString('base64')
}

describe.each(dialects())('POST /qr-codes/preview.{png,svg} on %s', (dialect) => {
  let server: TestServer
  let client: Api

  beforeAll(async () => {
    server = await startServer({ dialect, env: UNLIMITED })
    client = api(server, server.apiKey)
  })
  afterAll(() => server.close())

  const preview = (format: 'png' | 'svg', body: unknown, key = client.key) =>
    fetch(`${server.baseUrl}/api/v1/qr-codes/preview.${format}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  it('renders a static design that decodes to its content, and stores nothing', async () => {
    await client.get('/qr-codes') // the key's last use is written once, before the snapshot
    const before = await dumpDatabase(server)
    const res = await preview('png', { contentType: 'text', content: 'preview me', style: DESIGN, size: 400 })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/png')
    expect(res.headers.get('cache-control')).toBe('no-store')
    const bytes = Buffer.from(await res.arrayBuffer())
    expect(PNG.sync.read(bytes).width).toBe(400)
    expect(decodePng(bytes)).toBe('preview me')
    expect(await dumpDatabase(server)).toEqual(before)
  })

  it('draws a dynamic code with a short link of the real length', async () => {
    const res = await preview('png', {
      contentType: 'url',
      content: 'https://example.com/menu',
      type: 'dynamic',
      style: { moduleShape: 'rounded' },
    })
    expect(decodePng(Buffer.from(await res.arrayBuffer()))).toMatch(/\/r\/[0-9A-Za-z]{7}$/)
  })

  it('renders SVG, and a plain code with no style', async () => {
    const svg = await preview('svg', { contentType: 'text', content: 'x', style: DESIGN })
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/)
    expect(await svg.text()).toContain('<linearGradient')
    const plain = await preview('png', { contentType: 'url', content: 'https://example.com' })
    expect(decodePng(Buffer.from(await plain.arrayBuffer()))).toBe('https://example.com')
  })

  it('draws the account’s own logo, and answers 404 for another account’s', async () => {
    const asset = await client.post('/assets', { contentType: 'image/png', data: logoPng() })
    expect(asset.status, asset.text).toBe(201)
    const style = { logo: { assetId: asset.body.data.id, size: 0.15 } }
    const mine = await preview('png', { contentType: 'text', content: LOGO_TEXT, style })
    expect(mine.status, await mine.clone().text()).toBe(200)
    expect(decodePng(Buffer.from(await mine.arrayBuffer()))).toBe(LOGO_TEXT)
    const other = (await server.createAccount()).apiKey
    const res = await preview('png', { contentType: 'text', content: LOGO_TEXT, style }, other)
    expect(res.status).toBe(404)
    expect(((await res.json()) as { error: string }).error).toBe('not_found')
  })

  it('answers 400 unscannable with the checks for a design that would not scan', async () => {
    const res = await client.post('/qr-codes/preview.png', {
      contentType: 'text',
      content: 'x',
      style: UNSCANNABLE,
    })
    expectError(res, 400, 'unscannable')
    expect(res.body.details.checks.some((check: { ok: boolean }) => !check.ok)).toBe(true)
  })

  it.each<[unknown, string]>([
    [{ contentType: 'text' }, 'content'],
    [{ contentType: 'url', content: 'not a url' }, 'content'],
    [{ contentType: 'text', content: 'x', size: 2048 }, 'size'],
    [{ contentType: 'text', content: 'x', size: '512' }, 'size'],
    [{ contentType: 'text', content: 'x', style: { moduleShape: 'star' } }, 'style.moduleShape'],
    [{ contentType: 'text', content: 'x', name: 'extra' }, "Unknown field 'name'"],
  ])('answers 400 naming the field for %j', async (body, field) => {
    const res = await client.post('/qr-codes/preview.svg', body)
    expectError(res, 400, 'validation_error')
    const named = res.body.details.issues.map((i: { path: string; message: string }) => i.path || i.message)
    expect(named.join('\n')).toContain(field)
    expectNoLeak(res.text)
  })

  it('is open to a read-only key, and answers the same bytes to a repeated Idempotency-Key', async () => {
    const key = await client.post('/api-keys', { name: 'reader', scope: 'read' })
    const body = { contentType: 'text', content: 'read only', style: DESIGN }
    const reader = await preview('png', body, key.body.data.secret)
    expect(reader.status).toBe(200)
    const again = async () =>
      fetch(`${server.baseUrl}/api/v1/qr-codes/preview.png`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${client.key}`,
          'content-type': 'application/json',
          'idempotency-key': 'p-1',
        },
        body: JSON.stringify(body),
      })
    const first = Buffer.from(await (await again()).arrayBuffer())
    const second = await again()
    expect(second.status).toBe(200)
    expect(Buffer.from(await second.arrayBuffer()).equals(first)).toBe(true)
  })

  it('is reached through the SDK', async () => {
    const qrctl = new Qrctl({ apiKey: client.key, baseUrl: server.baseUrl })
    const png = await qrctl.qrCodes.preview({
      format: 'png',
      contentType: 'text',
      content: 'from the sdk',
      size: 256,
    })
    expect(decodePng(Buffer.from(png))).toBe('from the sdk')
    const svg = await qrctl.qrCodes.preview({
      format: 'svg',
      contentType: 'text',
      content: 'x',
      style: DESIGN,
    })
    expect(new TextDecoder().decode(svg)).toContain('<svg')
    await expect(
      qrctl.qrCodes.preview({ format: 'png', contentType: 'text', content: 'x', style: UNSCANNABLE }),
    ).rejects.toBeInstanceOf(QrctlUnscannableError)
    await expect(
      qrctl.qrCodes.preview({ format: 'png', contentType: 'text', content: 'x', size: 9999 }),
    ).rejects.toBeInstanceOf(QrctlValidationError)
    await qrctl.close()
  })
})
