import { PNG } from 'pngjs'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import {
  type Api,
  api,
  createCode,
  decodePng,
  dynamicCode,
  expectError,
  expectNoLeak,
  fetchBytes,
  MISSING_ID,
  textCode,
  UNLIMITED,
} from './helpers.js'

/** DESIGN §13: logo assets (upload, re-encode, limits, 409 while used) and logos in styles. */

const solid = (width: number, height: number, background: string) =>
  sharp({ create: { width, height, channels: 4, background } })

async function pngOf(width: number, height: number, color = '#C62828'): Promise<Buffer> {
  return solid(width, height, color).png().toBuffer()
}

/** Long enough for a version 4 symbol, which has room for a logo between its patterns. */
const LOGO_CONTENT = 'https://example.com/menu/spring-2026?table=12'

/** A real 8×8 PNG whose header claims `width` × `height` px: a decompression bomb's shape. */
async function claimsToBe(width: number, height: number): Promise<Buffer> {
  const png = Buffer.from(await pngOf(8, 8))
  png.writeUInt32BE(width, 16)
  png.writeUInt32BE(height, 20)
  png.writeUInt32BE(crc32(png.subarray(12, 29)), 29)
  return png
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff
  for (const byte of bytes) {
    crc ^= byte
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1
  }
  return (crc ^ 0xffffffff) >>> 0
}

const upload = (contentType: string, bytes: Buffer | string, name?: string) => ({
  ...(name && { name }),
  contentType,
  data: Buffer.from(bytes).toString('base64'),
})

describe.each(dialects())('assets on %s', (dialect) => {
  let server: TestServer
  let client: Api
  let logoId: string

  beforeAll(async () => {
    server = await startServer({ dialect, env: UNLIMITED })
    client = api(server, server.apiKey)
    const res = await client.post('/assets', upload('image/png', await pngOf(200, 200), 'logo'))
    expect(res.status, res.text).toBe(201)
    logoId = res.body.data.id
  })
  afterAll(() => server.close())

  describe('happy', () => {
    it('stores an upload as PNG and serves it', async () => {
      const jpeg = await solid(300, 120, '#1565C0')
        .withMetadata({ exif: { IFD0: { Copyright: 'secret camera owner' } } })
        .jpeg()
        .toBuffer()
      const res = await client.post('/assets', upload('image/jpeg', jpeg, 'banner'))
      expect(res.status).toBe(201)
      expect(res.body.data).toMatchObject({
        name: 'banner',
        contentType: 'image/png',
        width: 300,
        height: 120,
      })
      expect(res.body.data.url).toBe(`${server.baseUrl}/api/v1/assets/${res.body.data.id}/content`)
      const content = await fetchBytes(client, res.body.data.url)
      expect(content.status).toBe(200)
      expect(content.headers.get('content-type')).toBe('image/png')
      expect(content.bytes.length).toBe(res.body.data.bytes)
      const meta = await sharp(content.bytes).metadata()
      expect(meta).toMatchObject({ format: 'png', width: 300, height: 120 })
      expect(meta.exif).toBeUndefined()
      expect(content.bytes.toString('latin1')).not.toContain('secret camera owner')
    })

    it('accepts WebP and SVG, scales down to fit 1024 px and never up', async () => {
      const webp = await solid(2000, 1000, '#2E7D32').webp().toBuffer()
      const big = await client.post('/assets', upload('image/webp', webp))
      expect(big.body.data).toMatchObject({ width: 1024, height: 512, name: null })
      const svg =
        '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><script>fetch("http://127.0.0.1:9/x")</script><rect width="40" height="20" fill="#6A1B9A"/></svg>'
      const small = await client.post('/assets', upload('image/svg+xml', svg))
      expect(small.status).toBe(201)
      expect(small.body.data).toMatchObject({ width: 40, height: 20, contentType: 'image/png' })
      const pixels = PNG.sync.read((await fetchBytes(client, small.body.data.url)).bytes)
      expect([...pixels.data.subarray(0, 3)]).toEqual([0x6a, 0x1b, 0x9a])
    })

    it('lists newest first with total, limit and offset', async () => {
      const res = await client.get('/assets?limit=2')
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ limit: 2, offset: 0 })
      expect(res.body.total).toBeGreaterThanOrEqual(4)
      expect(res.body.data).toHaveLength(2)
      expect(res.body.data[0].createdAt >= res.body.data[1].createdAt).toBe(true)
      expect((await client.get(`/assets/${logoId}`)).body.data.id).toBe(logoId)
    })

    it('draws a logo, raises error correction to Q (or H above 0.2) and decodes', async () => {
      const code = await createCode(client, dynamicCode({ style: { logo: { assetId: logoId } } }))
      expect(code.style).toEqual({ logo: { assetId: logoId }, errorCorrectionLevel: 'Q' })
      const png = await fetchBytes(client, `${code.assets.png}?size=512`)
      expect(decodePng(png.bytes)).toBe(code.shortUrl)
      const pixels = PNG.sync.read(png.bytes)
      const centre = (256 * 512 + 256) * 4
      expect([...pixels.data.subarray(centre, centre + 3)]).toEqual([0xc6, 0x28, 0x28])
      const svg = await fetchBytes(client, code.assets.svg)
      expect(svg.bytes.toString()).toContain('<image ')
      const pdf = await fetchBytes(client, code.assets.pdf)
      expect(pdf.bytes.toString('latin1')).toContain('/Subtype /Image')

      const large = await createCode(
        client,
        textCode({
          content: LOGO_CONTENT,
          style: { errorCorrectionLevel: 'L', logo: { assetId: logoId, size: 0.25, padding: 0 } },
        }),
      )
      expect(large.style?.errorCorrectionLevel).toBe('H')
    })

    it('raises error correction on PATCH too, and checks capacity at the raised level', async () => {
      const code = await createCode(
        client,
        textCode({ content: LOGO_CONTENT, style: { errorCorrectionLevel: 'L' } }),
      )
      const res = await client.patch(`/qr-codes/${code.id}`, {
        style: { errorCorrectionLevel: 'L', logo: { assetId: logoId, size: 0.3 } },
      })
      expect(res.status, res.text).toBe(200)
      expect(res.body.data.style.errorCorrectionLevel).toBe('H')
      const long = await createCode(
        client,
        textCode({ content: 'x'.repeat(2000), style: { errorCorrectionLevel: 'L' } }),
      )
      const tooLong = await client.patch(`/qr-codes/${long.id}`, { style: { logo: { assetId: logoId } } })
      expectError(tooLong, 400, 'validation_error')
      expect(tooLong.body.details.issues[0].path).toBe('content')
    })

    it('deletes an asset no style uses', async () => {
      const res = await client.post('/assets', upload('image/png', await pngOf(10, 10)))
      expect(await client.delete(`/assets/${res.body.data.id}`)).toMatchObject({
        status: 200,
        body: { success: true },
      })
      expectError(await client.get(`/assets/${res.body.data.id}`), 404, 'not_found')
    })
  })

  describe('errors', () => {
    it.each<[string, () => Promise<unknown>, string]>([
      ['bytes that are not the declared type', async () => upload('image/jpeg', await pngOf(5, 5)), 'data'],
      ['garbage', async () => upload('image/png', Buffer.from('not an image at all')), 'data'],
      ['a type not listed', async () => upload('image/gif', Buffer.from('GIF89a')), 'contentType'],
      ['broken base64', async () => ({ contentType: 'image/png', data: 'a$b' }), 'data'],
      ['text posing as SVG', async () => upload('image/svg+xml', 'hello'), 'data'],
      [
        'an SVG that references a file',
        async () =>
          upload(
            'image/svg+xml',
            '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10"><image xlink:href="/etc/hostname" width="10" height="10"/></svg>',
          ),
        'data',
      ],
      [
        'an SVG with an external entity',
        async () =>
          upload(
            'image/svg+xml',
            '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&x;</text></svg>',
          ),
        'data',
      ],
      ['an image over 4096 px', async () => upload('image/png', await pngOf(4097, 8)), 'data'],
      [
        'a decompression bomb (a header of 60 000 × 60 000 px)',
        async () => upload('image/png', await claimsToBe(60000, 60000)),
        'data',
      ],
      ['over 512 KiB decoded', async () => upload('image/png', Buffer.alloc(600 * 1024, 1)), 'data'],
    ])('answers 400 naming the field for %s', async (_what, body, path) => {
      const res = await client.post('/assets', await body())
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues.map((i: { path: string }) => i.path)).toContain(path)
      expectNoLeak(res.text)
    })

    it('refuses an unknown field, naming it', async () => {
      const res = await client.post('/assets', { ...upload('image/png', await pngOf(5, 5)), url: 'x' })
      expectError(res, 400, 'validation_error')
      expect(res.text).toContain('url')
    })

    it('answers 409 while a style uses the asset, deleted codes included', async () => {
      const asset = (await client.post('/assets', upload('image/png', await pngOf(50, 50)))).body.data
      const code = await createCode(
        client,
        textCode({ content: LOGO_CONTENT, style: { logo: { assetId: asset.id } } }),
      )
      expectError(await client.delete(`/assets/${asset.id}`), 409, 'conflict')
      await client.delete(`/qr-codes/${code.id}`)
      expectError(await client.delete(`/assets/${asset.id}`), 409, 'conflict')
      await client.post(`/qr-codes/${code.id}/restore`)
      expect((await client.patch(`/qr-codes/${code.id}`, { style: null })).status).toBe(200)
      expect((await client.delete(`/assets/${asset.id}`)).status).toBe(200)
    })

    it('refuses a logo that would cover a finder as unscannable', async () => {
      const res = await client.post(
        '/qr-codes',
        textCode({ content: 'hi', style: { logo: { assetId: logoId, size: 0.3, padding: 4 } } }),
      )
      expectError(res, 400, 'unscannable')
      expect(res.body.details.message).toMatch(/finder, timing or alignment/)
    })

    it('answers 404 for a logo asset that does not exist, in a batch as that item’s error', async () => {
      expectError(
        await client.post(
          '/qr-codes',
          textCode({ content: LOGO_CONTENT, style: { logo: { assetId: MISSING_ID } } }),
        ),
        404,
        'not_found',
      )
      const batch = await client.post('/qr-codes/batch', {
        codes: [textCode({ content: LOGO_CONTENT, style: { logo: { assetId: MISSING_ID } } }), textCode()],
      })
      expect(batch.body.data.created).toBe(1)
      expect(batch.body.data.errors[0]).toMatch(/^codes\[0\]\.style\.logo\.assetId: /)
    })
  })

  describe('security', () => {
    it('answers 404 for another account’s asset everywhere, in a style too', async () => {
      const other = api(server, (await server.createAccount()).apiKey)
      expectError(await other.get(`/assets/${logoId}`), 404, 'not_found')
      expect((await fetchBytes(other, `${server.baseUrl}/api/v1/assets/${logoId}/content`)).status).toBe(404)
      expectError(await other.delete(`/assets/${logoId}`), 404, 'not_found')
      expectError(
        await other.post(
          '/qr-codes',
          textCode({ content: LOGO_CONTENT, style: { logo: { assetId: logoId } } }),
        ),
        404,
        'not_found',
      )
      expect((await other.get('/assets')).body.data).toEqual([])
    })

    it('answers 403 to a read-only key uploading', async () => {
      const key = await client.post('/api-keys', { name: 'reader', scope: 'read' })
      const reader = api(server, key.body.data.secret)
      expectError(
        await reader.post('/assets', upload('image/png', await pngOf(5, 5))),
        403,
        'insufficient_scope',
      )
      expect((await reader.get('/assets')).status).toBe(200)
    })
  })
})
