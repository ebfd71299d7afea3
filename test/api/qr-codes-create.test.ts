import type { QrCode } from '@qrctl/contract'
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

const BASE62_7 = /^[0-9A-Za-z]{7}$/

describe.each(dialects())('POST /qr-codes on %s', (dialect) => {
  let server: TestServer
  let client: Api

  beforeAll(async () => {
    server = await startServer({ dialect, env: UNLIMITED })
    client = api(server, server.apiKey)
  })
  afterAll(() => server.close())

  describe('happy', () => {
    it('creates a static code when neither type nor targetUrl is given', async () => {
      const res = await client.post('/qr-codes', textCode({ name: 'Menu' }))
      expect(res.status).toBe(201)
      const code: QrCode = res.body.data
      expect(code).toMatchObject({
        name: 'Menu',
        type: 'static',
        contentType: 'text',
        content: 'hello',
        targetUrl: null,
        shortCode: null,
        shortUrl: null,
        style: null,
        isActive: true,
        totalScans: 0,
      })
      expect(code.id).toMatch(/^[0-9a-f-]{36}$/)
      expect(code.createdAt).toBe(code.updatedAt)
      expect(Date.parse(code.createdAt)).not.toBeNaN()
    })

    it('makes a code with a targetUrl and no type dynamic', async () => {
      const code = await createCode(
        client,
        textCode({ contentType: 'text', content: 'Scan me', targetUrl: 'https://example.com/a' }),
      )
      expect(code.type).toBe('dynamic')
      expect(code.targetUrl).toBe('https://example.com/a')
      expect(code.shortCode).toMatch(BASE62_7)
      expect(code.shortUrl).toBe(`${server.baseUrl}/r/${code.shortCode}`)
    })

    it('defaults a dynamic url code’s targetUrl to its content', async () => {
      const code = await createCode(client, dynamicCode({ content: 'https://example.com/menu' }))
      expect(code).toMatchObject({ type: 'dynamic', targetUrl: 'https://example.com/menu' })
    })

    it('gives every dynamic code a unique 7-character base62 short code', async () => {
      const res = await client.post('/qr-codes/batch', {
        codes: Array.from({ length: 60 }, (_, i) => dynamicCode({ name: `d${i}` })),
      })
      expect(res.status).toBe(201)
      const codes = res.body.data.items.map((c: QrCode) => c.shortCode)
      expect(codes).toHaveLength(60)
      for (const shortCode of codes) expect(shortCode).toMatch(BASE62_7)
      expect(new Set(codes).size).toBe(60)
    })

    it('answers with absolute asset URLs of the PNG, SVG and PDF images', async () => {
      const code = await createCode(client)
      const base = `${server.baseUrl}/api/v1/qr-codes/${code.id}`
      expect(code.assets).toEqual({
        png: `${base}/image.png`,
        svg: `${base}/image.svg`,
        pdf: `${base}/image.pdf`,
      })
      for (const url of Object.values(code.assets)) expect((await fetchBytes(client, url)).status).toBe(200)
    })

    it('keeps a valid style as given', async () => {
      const style = {
        foregroundColor: '#1a2B3c',
        backgroundColor: '#FFF',
        errorCorrectionLevel: 'H',
        margin: 0,
      }
      const code = await createCode(client, textCode({ style: style as QrCode['style'] }))
      expect(code.style).toEqual(style)
      expect((await client.get(`/qr-codes/${code.id}`)).body.data.style).toEqual(style)
    })

    it('stores SQL-looking, unicode and emoji text as given', async () => {
      const name = `'; DROP TABLE qr_codes; -- ✓ 名前 😀`
      const code = await createCode(client, textCode({ name, content: `Robert'); DROP TABLE qr_codes;--` }))
      expect((await client.get(`/qr-codes/${code.id}`)).body.data).toMatchObject({
        name,
        content: `Robert'); DROP TABLE qr_codes;--`,
      })
    })

    // What a static code of each contentType encodes, read back from the PNG with a real decoder.
    it.each([
      ['url', 'https://example.com/a?b=1&c=%20', 'https://example.com/a?b=1&c=%20'],
      ['text', 'Grüße, 世界 ✓', 'Grüße, 世界 ✓'],
      ['email', 'Hi@Example.com', 'mailto:Hi@Example.com'],
      ['phone', '+1 (555) 010-0000', 'tel:+15550100000'],
      ['sms', '+15550100:See you at 8', 'SMSTO:+15550100:See you at 8'],
      ['sms', '+15550100', 'SMSTO:+15550100'],
      ['wifi', 'WIFI:T:WPA;S:Home;P:secret123;;', 'WIFI:T:WPA;S:Home;P:secret123;;'],
      [
        'wifi',
        JSON.stringify({ ssid: 'Café;1', password: 'pa:ss word', encryption: 'WPA', hidden: true }),
        'WIFI:T:WPA;S:Café\\;1;P:pa\\:ss word;H:true;;',
      ],
      ['wifi', JSON.stringify({ ssid: 'Guest' }), 'WIFI:T:nopass;S:Guest;;'],
      [
        'vcard',
        'BEGIN:VCARD\nVERSION:3.0\nFN:Ada Lovelace\nEND:VCARD',
        'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada Lovelace\r\nEND:VCARD',
      ],
      [
        'vcard',
        'BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ada\r\nEND:VCARD',
        'BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ada\r\nEND:VCARD',
      ],
    ] as const)('encodes %s content %j as %j', async (contentType, content, payload) => {
      const code = await createCode(client, { name: contentType, contentType, content })
      expect(code.content).toBe(content)
      const png = await fetchBytes(client, code.assets.png)
      expect(decodePng(png.bytes)).toBe(payload)
    })

    it('accepts content that fits at a lower error-correction level', async () => {
      const content = 'x'.repeat(2300)
      await createCode(client, textCode({ content, style: { errorCorrectionLevel: 'L' } }))
    })
  })

  describe('errors', () => {
    it.each([
      ['url', 'example.com'],
      ['url', 'javascript:alert(1)'],
      ['url', 'ftp://example.com/file'],
      ['email', 'not-an-address'],
      ['phone', '12'],
      ['phone', 'call me'],
      ['sms', 'hello:there'],
      ['wifi', 'my network'],
      ['wifi', 'WIFI:T:WPA;S:Home;P:short;;'],
      ['wifi', '{"ssid": ""}'],
      ['wifi', '{"ssid": "Home", "colour": "red"}'],
      ['vcard', 'Ada Lovelace'],
      ['vcard', 'BEGIN:VCARD\nVERSION:2.1\nFN:Ada\nEND:VCARD'],
      ['vcard', 'BEGIN:VCARD\nVERSION:3.0\nEND:VCARD'],
    ] as const)(
      'answers 400 for %s content %j, naming the field and the rule',
      async (contentType, content) => {
        const res = await client.post('/qr-codes', { name: 'bad', contentType, content })
        expectError(res, 400, 'validation_error')
        const issue = res.body.details.issues.find((i: { path: string }) => i.path === 'content')
        expect(issue?.message).toMatch(new RegExp(contentType, 'i'))
      },
    )

    it('answers 400 with how many bytes fit when the content is too big for a QR symbol', async () => {
      const res = await client.post('/qr-codes', textCode({ content: 'x'.repeat(3000) }))
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues).toEqual([
        { path: 'content', message: expect.stringMatching(/3000 bytes.*level M at most 2331 bytes fit/) },
      ])
      const high = await client.post(
        '/qr-codes',
        textCode({ content: 'x'.repeat(1300), style: { errorCorrectionLevel: 'H' } }),
      )
      expectError(high, 400, 'validation_error')
      expect(high.body.details.message).toMatch(/level H at most 1273 bytes fit/)
    })

    it('answers 400 for content over 4096 bytes, counted in UTF-8', async () => {
      const res = await client.post('/qr-codes', textCode({ content: 'é'.repeat(2049) }))
      expectError(res, 400, 'validation_error')
      expect(res.body.details.message).toMatch(/4096 bytes/)
    })

    it('answers 400 for a static code with a targetUrl', async () => {
      const res = await client.post(
        '/qr-codes',
        textCode({ type: 'static', targetUrl: 'https://example.com' }),
      )
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues[0]).toMatchObject({
        path: 'targetUrl',
        message: expect.stringMatching(/static/),
      })
    })

    it('answers 400 for a dynamic code with neither targetUrl nor url content', async () => {
      const res = await client.post('/qr-codes', textCode({ type: 'dynamic' }))
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues[0].path).toBe('targetUrl')
    })

    it.each([
      'ftp://example.com',
      'example.com',
      `https://example.com/${'a'.repeat(2048)}`,
      'https://exa mple.com',
    ])('answers 400 for targetUrl %s', async (targetUrl) => {
      const res = await client.post('/qr-codes', dynamicCode({ targetUrl }))
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues[0].path).toBe('targetUrl')
    })

    it.each([
      [
        { foregroundColor: '#777777', backgroundColor: '#888888' },
        /Contrast between #777777 and #888888 is 1\.\d\d:1/,
      ],
      [{ foregroundColor: '#FFFFFF', backgroundColor: '#000000' }, /lighter than background/],
      [{ foregroundColor: '#FFFF00' }, /Contrast/],
      [{ foregroundColor: 'red' }, /#RGB or #RRGGBB/],
      [{ errorCorrectionLevel: 'X' }, /Invalid enum value/],
      [{ margin: 17 }, /0–16/],
      [{ margin: 1.5 }, /whole number/],
      [{ colour: '#000' }, /Unknown field 'colour'/],
    ])('answers 400 for style %j', async (style, message) => {
      const res = await client.post('/qr-codes', { ...textCode(), style })
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues.map((i: { message: string }) => i.message).join(' ')).toMatch(message)
      expect(res.body.details.issues[0].path).toMatch(/^style/)
    })

    it('answers 400 listing every missing field', async () => {
      const res = await client.post('/qr-codes', {})
      expectError(res, 400, 'validation_error')
      const paths = res.body.details.issues.map((i: { path: string }) => i.path)
      expect(paths).toEqual(expect.arrayContaining(['name', 'contentType', 'content']))
    })

    it.each([
      [{ name: '' }, 'name'],
      [{ name: 'n'.repeat(201) }, 'name'],
      [{ content: '' }, 'content'],
      [{ contentType: 'pdf' }, 'contentType'],
      [{ type: 'printed' }, 'type'],
    ])('answers 400 for %j', async (override, path) => {
      const res = await client.post('/qr-codes', { ...textCode(), ...override })
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues.map((i: { path: string }) => i.path)).toContain(path)
    })

    it('names the camelCase field when a snake_case one is sent, and refuses a chosen short code', async () => {
      const res = await client.post('/qr-codes', { ...dynamicCode(), target_url: 'https://example.com' })
      expectError(res, 400, 'validation_error')
      expect(res.body.details.message).toMatch(/did you mean 'targetUrl'/)
      const short = await client.post('/qr-codes', { ...dynamicCode(), shortCode: 'abcdefg' })
      expectError(short, 400, 'validation_error')
      expect(short.body.details.message).toMatch(/assigned by the service/)
    })
  })

  describe('concurrency', () => {
    it('gives 50 concurrent creates 50 distinct ids and short codes', async () => {
      const account = await server.createAccount()
      const other = api(server, account.apiKey)
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => other.post('/qr-codes', dynamicCode({ name: `c${i}` }))),
      )
      expect(results.map((r) => r.status)).toEqual(Array(50).fill(201))
      const codes: QrCode[] = results.map((r) => r.body.data)
      expect(new Set(codes.map((c) => c.id)).size).toBe(50)
      expect(new Set(codes.map((c) => c.shortCode)).size).toBe(50)
      expect((await other.get('/qr-codes?limit=1')).body.total).toBe(50)
    })
  })

  describe('GET /qr-codes/{id}', () => {
    it('answers the code as created', async () => {
      const code = await createCode(client, dynamicCode())
      const res = await client.get(`/qr-codes/${code.id}`)
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ data: code })
    })

    it('answers 404 not_found for an unknown id', async () => {
      expectError(await client.get(`/qr-codes/${MISSING_ID}`), 404, 'not_found')
    })

    it('answers 400 validation_error for an id that is not a UUID', async () => {
      const res = await client.get('/qr-codes/not-a-uuid')
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues[0].path).toBe('id')
    })
  })
})
