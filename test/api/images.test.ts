import type { QrCode } from '@qrctl/contract'
import { PNG } from 'pngjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import {
  type Api,
  api,
  createCode,
  decodePng,
  dynamicCode,
  expectError,
  fetchBytes,
  MISSING_ID,
  textCode,
  UNLIMITED,
} from './helpers.js'

const PUBLIC_BASE_URL = 'https://qr.example.test'

describe.each(dialects())('QR code images on %s', (dialect) => {
  let server: TestServer
  let client: Api

  beforeAll(async () => {
    server = await startServer({ dialect, env: { ...UNLIMITED, PUBLIC_BASE_URL } })
    client = api(server, server.apiKey)
  })
  afterAll(() => server.close())

  /** The image URL on the bound address (the asset URLs point at PUBLIC_BASE_URL). */
  const imageUrl = (code: QrCode, format: string, query = '') =>
    `${server.baseUrl}/api/v1/qr-codes/${code.id}/image.${format}${query}`

  describe('happy', () => {
    it('answers asset URLs under PUBLIC_BASE_URL', async () => {
      const code = await createCode(client)
      expect(code.assets.png).toBe(`${PUBLIC_BASE_URL}/api/v1/qr-codes/${code.id}/image.png`)
    })

    it.each([
      [
        'png',
        'image/png',
        (b: Buffer) => b.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10])),
      ],
      [
        'svg',
        'image/svg+xml',
        (b: Buffer) => /^(<\?xml[^>]*>\s*)?<svg[^>]*viewBox=/.test(b.toString('utf8')),
      ],
      ['pdf', 'application/pdf', (b: Buffer) => b.toString('latin1').startsWith('%PDF-')],
    ])('renders %s as %s', async (format, contentType, looksRight) => {
      const code = await createCode(client)
      const res = await fetchBytes(client, imageUrl(code, format))
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toContain(contentType)
      expect(res.headers.get('cache-control')).toBe('no-store')
      expect(res.headers.get('content-disposition')).toBeNull()
      expect(looksRight(res.bytes)).toBe(true)
    })

    it('renders a static code’s PNG that decodes to its content', async () => {
      const code = await createCode(client, textCode({ content: 'Decode me: 123 ✓' }))
      expect(decodePng((await fetchBytes(client, imageUrl(code, 'png'))).bytes)).toBe('Decode me: 123 ✓')
    })

    it('renders a dynamic code’s PNG that decodes to {PUBLIC_BASE_URL}/r/{shortCode}', async () => {
      const code = await createCode(client, dynamicCode())
      const decoded = decodePng((await fetchBytes(client, imageUrl(code, 'png'))).bytes)
      expect(decoded).toBe(`${PUBLIC_BASE_URL}/r/${code.shortCode}`)
      expect(decoded).toBe(code.shortUrl)
    })

    it('renders a styled code that still decodes', async () => {
      const style = {
        foregroundColor: '#1B3A5C',
        backgroundColor: '#FFF8E7',
        errorCorrectionLevel: 'H',
        margin: 2,
      }
      const code = await createCode(client, textCode({ content: 'styled', style: style as QrCode['style'] }))
      const res = await fetchBytes(client, imageUrl(code, 'png'))
      expect(decodePng(res.bytes)).toBe('styled')
      const svg = (await fetchBytes(client, imageUrl(code, 'svg'))).bytes.toString('utf8')
      expect(svg.toUpperCase()).toContain('#1B3A5C')
    })

    it.each([
      ['', 512],
      ['?size=64', 64],
      ['?size=1000', 1000],
      ['?size=4096', 4096],
    ])('sizes the PNG with %s to %i pixels', async (query, pixels) => {
      const code = await createCode(client)
      const res = await fetchBytes(client, imageUrl(code, 'png', query))
      expect(res.status).toBe(200)
      const png = PNG.sync.read(res.bytes)
      expect([png.width, png.height]).toEqual([pixels, pixels])
    })

    it('answers an ETag, and 304 with no body for a matching If-None-Match', async () => {
      const code = await createCode(client)
      const first = await fetchBytes(client, imageUrl(code, 'png'))
      const etag = first.headers.get('etag')
      expect(etag).toMatch(/^(W\/)?"[^"]+"$/)
      const again = await fetchBytes(client, imageUrl(code, 'png'), { 'if-none-match': etag as string })
      expect(again.status).toBe(304)
      expect(again.bytes.length).toBe(0)
      expect(again.headers.get('etag')).toBe(etag)
      const list = await fetchBytes(client, imageUrl(code, 'png'), { 'if-none-match': `"other", ${etag}` })
      expect(list.status).toBe(304)
      const stale = await fetchBytes(client, imageUrl(code, 'png'), { 'if-none-match': '"stale"' })
      expect(stale.status).toBe(200)
    })

    it('changes the ETag when the image changes, and per size and format', async () => {
      const code = await createCode(client)
      const etagOf = async (url: string) => (await fetchBytes(client, url)).headers.get('etag')
      const before = await etagOf(imageUrl(code, 'png'))
      expect(await etagOf(imageUrl(code, 'png', '?size=256'))).not.toBe(before)
      expect(await etagOf(imageUrl(code, 'svg'))).not.toBe(before)
      await client.patch(`/qr-codes/${code.id}`, { content: 'changed' })
      const after = await etagOf(imageUrl(code, 'png'))
      expect(after).not.toBe(before)
      const stale = await fetchBytes(client, imageUrl(code, 'png'), { 'if-none-match': before as string })
      expect(stale.status).toBe(200)
      expect(decodePng(stale.bytes)).toBe('changed')
    })

    it.each(['png', 'svg', 'pdf'])(
      'adds Content-Disposition: attachment to %s with download=1',
      async (format) => {
        const code = await createCode(client, textCode({ name: 'Spring Menu 2026!' }))
        const res = await fetchBytes(client, imageUrl(code, format, '?download=1'))
        expect(res.status).toBe(200)
        expect(res.headers.get('content-disposition')).toMatch(
          new RegExp(`^attachment; filename="?spring-menu-2026\\.${format}"?$`),
        )
        const viaTrue = await fetchBytes(client, imageUrl(code, format, '?download=true'))
        expect(viaTrue.headers.get('content-disposition')).toMatch(/^attachment/)
      },
    )
  })

  describe('errors', () => {
    it.each(['size=63', 'size=4097', 'size=0', 'size=big', 'size=100.5', 'download=maybe', 'scale=2'])(
      'answers 400 for %s',
      async (query) => {
        const code = await createCode(client)
        const res = await client.get(imageUrl(code, 'png', `?${query}`))
        expectError(res, 400, 'validation_error')
      },
    )

    it('answers 400 naming the smallest size when a PNG would have less than a pixel per module', async () => {
      const code = await createCode(client, textCode({ content: 'x'.repeat(200) }))
      const res = await client.get(imageUrl(code, 'png', '?size=64'))
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues).toEqual([
        { path: 'size', message: expect.stringContaining('at least 65 px') },
      ])
      expect((await fetchBytes(client, imageUrl(code, 'png', '?size=65'))).status).toBe(200)
    })

    it('answers 404 for an unknown or deleted code', async () => {
      expectError(await client.get(`/qr-codes/${MISSING_ID}/image.png`), 404, 'not_found')
      const code = await createCode(client)
      await client.delete(`/qr-codes/${code.id}`)
      expectError(await client.get(imageUrl(code, 'svg')), 404, 'not_found')
    })

    it('answers 404 for an unknown format', async () => {
      const code = await createCode(client)
      expectError(await client.get(imageUrl(code, 'gif')), 404, 'not_found')
    })
  })
})
