import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import {
  type Api,
  type ApiResponse,
  api,
  createCode,
  dynamicCode,
  expectError,
  expectNoLeak,
  textCode,
  UNLIMITED,
} from './helpers.js'

const JSON_TYPE = { 'content-type': 'application/json' }

/** A 4xx with the contract's error body and nothing internal in it. */
function expectClientError(res: ApiResponse, what: string): void {
  expect(res.status, `${what}: ${res.text}`).toBeGreaterThanOrEqual(400)
  expect(res.status, `${what}: ${res.text}`).toBeLessThan(500)
  expect(typeof res.body?.error, what).toBe('string')
  expectNoLeak(res.text)
}

describe.each(dialects())('robustness on %s', (dialect) => {
  let server: TestServer
  let client: Api

  beforeAll(async () => {
    server = await startServer({ dialect, env: UNLIMITED })
    client = api(server, server.apiKey)
  })
  afterAll(() => server.close())

  describe('request ids', () => {
    it('puts X-Request-Id on every answer, API or not, success or error', async () => {
      const urls = [
        `${server.baseUrl}/api/v1/qr-codes`,
        `${server.baseUrl}/api/v1/nope`,
        `${server.baseUrl}/healthz`,
        `${server.baseUrl}/readyz`,
        `${server.baseUrl}/metrics`,
        `${server.baseUrl}/api/v1/openapi.json`,
        `${server.baseUrl}/docs/`,
        `${server.baseUrl}/no/such/page`,
        `${server.baseUrl}/app/login`,
        `${server.baseUrl}/app/codes/new`,
        `${server.baseUrl}/app/assets/missing.js`,
      ]
      const ids = new Set<string>()
      for (const url of urls) {
        for (const headers of [{ authorization: `Bearer ${client.key}` }, {}] as Record<string, string>[]) {
          const res = await fetch(url, { headers })
          await res.arrayBuffer()
          const id = res.headers.get('x-request-id')
          expect(id, url).toMatch(/^[A-Za-z0-9._-]{1,64}$/)
          ids.add(id as string)
        }
      }
      expect(ids.size).toBe(urls.length * 2)
    })

    it('echoes a sane X-Request-Id and puts it in error bodies', async () => {
      const res = await client.get('/qr-codes/not-a-uuid', { headers: { 'x-request-id': 'trace-abc.123_X' } })
      expect(res.headers.get('x-request-id')).toBe('trace-abc.123_X')
      expect(res.body.details.requestId).toBe('trace-abc.123_X')
      const ok = await client.get('/qr-codes', { headers: { 'x-request-id': 'ok-1' } })
      expect(ok.headers.get('x-request-id')).toBe('ok-1')
    })

    it.each(['has spaces', 'x'.repeat(65), 'semi;colon', '<script>'])(
      'replaces the X-Request-Id %j',
      async (sent) => {
        const res = await client.get('/qr-codes', { headers: { 'x-request-id': sent } })
        expect(res.headers.get('x-request-id')).not.toBe(sent)
        expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
      },
    )
  })

  describe('bodies', () => {
    it('answers 413 payload_too_large for a body over 1 MiB, and creates nothing', async () => {
      const raw = JSON.stringify(textCode({ content: 'x'.repeat(1024 * 1024) }))
      const res = await client.request('POST', '/qr-codes', { raw, headers: JSON_TYPE })
      expectError(res, 413, 'payload_too_large')
      expect((await client.get('/qr-codes')).body.total).toBe(0)
    })

    it('reads a body under 1 MiB (far over Express’s 100 kB default) and judges its content', async () => {
      const raw = JSON.stringify(textCode({ content: 'x'.repeat(1000 * 1000) }))
      const res = await client.request('POST', '/qr-codes', { raw, headers: JSON_TYPE })
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues[0].path).toBe('content')
    })

    it.each(['{', '{"name": "a",}', "{'name': 'a'}", '{name: 1}', 'nul', '{"a":1}}'])(
      'answers 400 invalid_json for %j',
      async (raw) => {
        const res = await client.request('POST', '/qr-codes', { raw, headers: JSON_TYPE })
        expectError(res, 400, 'invalid_json')
        expectNoLeak(res.text)
      },
    )

    it.each([
      ['text/plain', 'name=x'],
      ['application/x-www-form-urlencoded', 'name=x&contentType=text&content=x'],
      ['multipart/form-data; boundary=x', '--x\r\n\r\nhi\r\n--x--'],
      ['application/xml', '<code/>'],
    ])('answers 415 unsupported_media_type for %s', async (type, raw) => {
      const res = await client.request('POST', '/qr-codes', { raw, headers: { 'content-type': type } })
      expectError(res, 415, 'unsupported_media_type')
    })

    it('answers 415 for a body with no Content-Type, and for a charset other than UTF-8', async () => {
      const bytes = new TextEncoder().encode(JSON.stringify(textCode()))
      expectError(await client.request('POST', '/qr-codes', { raw: bytes }), 415, 'unsupported_media_type')
      const latin1 = await client.request('POST', '/qr-codes', {
        raw: JSON.stringify(textCode()),
        headers: { 'content-type': 'application/json; charset=iso-8859-1' },
      })
      expectError(latin1, 415, 'unsupported_media_type')
    })

    it('accepts application/json with charset=utf-8 and application/merge-patch+json', async () => {
      const raw = JSON.stringify(textCode())
      const res = await client.request('POST', '/qr-codes', {
        raw,
        headers: { 'content-type': 'application/json; charset=utf-8' },
      })
      expect(res.status).toBe(201)
      const patch = await client.request('PATCH', `/qr-codes/${res.body.data.id}`, {
        raw: '{"name":"merged"}',
        headers: { 'content-type': 'application/merge-patch+json' },
      })
      expect(patch.body.data.name).toBe('merged')
    })

    it('answers 400 naming the field for text with a NUL character, on every dialect alike', async () => {
      const res = await client.post('/qr-codes', textCode({ name: 'a\u0000b' }))
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues).toEqual([{ path: 'name', message: expect.stringMatching(/NUL/) }])
      const code = await createCode(client)
      expectError(await client.patch(`/qr-codes/${code.id}`, { content: 'x\u0000' }), 400, 'validation_error')
      const batch = await client.post('/qr-codes/batch', {
        codes: [textCode(), textCode({ content: '\u0000' })],
      })
      expectError(batch, 400, 'validation_error')
      expect(batch.body.details.issues[0].path).toBe('codes.1.content')
    })

    it('answers 400 for JSON nested deeper than any request needs, with or without an Idempotency-Key', async () => {
      const deep = `{"name":${'['.repeat(100_000)}${']'.repeat(100_000)},"contentType":"text","content":"x"}`
      for (const headers of [JSON_TYPE, { ...JSON_TYPE, 'idempotency-key': 'deep' }]) {
        const res = await client.request('POST', '/qr-codes', { raw: deep, headers })
        expectError(res, 400, 'validation_error')
        expect(res.body.details.message).toMatch(/nest/)
      }
    })
  })

  describe('content encodings', () => {
    const compressors = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync }

    it.each(Object.keys(compressors) as (keyof typeof compressors)[])(
      'reads a %s-compressed body',
      async (encoding) => {
        const raw = new Uint8Array(
          compressors[encoding](JSON.stringify(textCode({ name: `zip ${encoding}` }))),
        )
        const res = await client.request('POST', '/qr-codes', {
          raw,
          headers: { ...JSON_TYPE, 'content-encoding': encoding },
        })
        expect(res.status, res.text).toBe(201)
        expect(res.body.data.name).toBe(`zip ${encoding}`)
      },
    )

    it.each(['gzip', 'deflate', 'br', 'GZIP'])(
      'answers 400 invalid_body, creating nothing, for a body that is not really %s',
      async (encoding) => {
        const before = (await client.get('/qr-codes')).body.total
        const plain = JSON.stringify(textCode())
        // Plain JSON, and a gzip stream cut short: neither decodes as the header says.
        const truncated = new Uint8Array(gzipSync(plain).subarray(0, 12))
        for (const raw of [plain, truncated]) {
          const res = await client.request('POST', '/qr-codes', {
            raw,
            headers: { ...JSON_TYPE, 'content-encoding': encoding },
          })
          expectError(res, 400, 'invalid_body')
          expect(res.body.details.message).toMatch(/Content-Encoding/)
          expect(res.body.details.contentEncoding).toBe(encoding)
          expectNoLeak(res.text)
        }
        expect((await client.get('/qr-codes')).body.total).toBe(before)
      },
    )

    it.each(['compress', 'zstd-ish', 'x-gzip2'])('answers 415 for Content-Encoding: %s', async (encoding) => {
      const res = await client.request('POST', '/qr-codes', {
        raw: JSON.stringify(textCode()),
        headers: { ...JSON_TYPE, 'content-encoding': encoding },
      })
      expectError(res, 415, 'unsupported_media_type')
      expect(res.body.details.message).toMatch(/Content-Encoding/)
    })
  })

  describe('unknown fields', () => {
    it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])(
      'names an unknown field called %s',
      async (name) => {
        // Written by hand: an object literal's `__proto__` would set the prototype, not a key.
        const raw = `{"name":"a","contentType":"text","content":"x",${JSON.stringify(name)}:1}`
        const res = await client.request('POST', '/qr-codes', { raw, headers: JSON_TYPE })
        expectError(res, 400, 'validation_error')
        expect(res.body.details.issues).toEqual([{ path: '', message: `Unknown field '${name}'` }])
      },
    )
  })

  describe('routes', () => {
    it('answers 404 not_found as JSON for an unknown /api/v1 route or method', async () => {
      for (const [method, path] of [
        ['GET', '/nope'],
        ['GET', ''],
        ['POST', '/qr-codes/00000000-0000-4000-8000-000000000000'],
        ['PUT', '/qr-codes'],
        ['GET', '/qr-codes/00000000-0000-4000-8000-000000000000/scans'],
      ] as const) {
        const res = await client.request(method, path)
        expectError(res, 404, 'not_found')
        expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      }
    })

    it('answers 404 as JSON outside /api/v1 too', async () => {
      const res = await fetch(`${server.baseUrl}/wp-login.php`)
      expect(res.status).toBe(404)
      expect(await res.json()).toMatchObject({ error: 'not_found' })
    })
  })

  describe('fuzzing: every nasty input is a 4xx with no stack or SQL in the body', () => {
    const nasty: unknown[] = [
      null,
      true,
      0,
      -1,
      1e308,
      -1e308,
      2 ** 53 + 2,
      '',
      ' ',
      '\u0000',
      '\uD800',
      '\u202Eevil',
      '😀'.repeat(300),
      "' OR 1=1 --",
      "'); DROP TABLE qr_codes; --",
      '%00%27',
      '{{7*7}}',
      '../../etc/passwd',
      'x'.repeat(10_000),
      [],
      [1, 2],
      {},
      { $gt: '' },
      { nested: { deeper: { deepest: [{}] } } },
    ]
    const fields = ['name', 'contentType', 'content', 'type', 'targetUrl', 'style', 'isActive']

    it('on create: a wrong value in every field', async () => {
      for (const field of fields) {
        for (const value of nasty) {
          const res = await client.post('/qr-codes', { ...dynamicCode(), [field]: value })
          if (res.status === 201) continue
          expectClientError(res, `${field}=${JSON.stringify(value)?.slice(0, 40)}`)
        }
      }
    })

    it('on create: a wrong value inside style', async () => {
      for (const key of [
        'foregroundColor',
        'backgroundColor',
        'errorCorrectionLevel',
        'margin',
        '__proto__',
      ]) {
        for (const value of nasty) {
          const res = await client.post('/qr-codes', { ...textCode(), style: { [key]: value } })
          if (res.status === 201) continue
          expectClientError(res, `style.${key}=${JSON.stringify(value)?.slice(0, 40)}`)
        }
      }
    })

    it('on patch and batch: a wrong value in every field', async () => {
      const code = await createCode(client, dynamicCode())
      for (const field of [...fields, 'shortCode', 'id', 'totalScans']) {
        for (const value of nasty) {
          const patch = await client.patch(`/qr-codes/${code.id}`, { [field]: value })
          if (patch.status !== 200)
            expectClientError(patch, `patch ${field}=${JSON.stringify(value)?.slice(0, 40)}`)
        }
      }
      for (const value of nasty) {
        const batch = await client.post('/qr-codes/batch', { codes: value })
        // A non-empty array is a valid envelope: its bad items come back in `errors`.
        if (Array.isArray(value) && value.length > 0) expect(batch.status).toBe(201)
        else expectClientError(batch, `codes=${JSON.stringify(value)?.slice(0, 40)}`)
        const items = await client.post('/qr-codes/batch?dryRun=true', { codes: [value] })
        if (items.status !== 201) expectClientError(items, `codes=[${JSON.stringify(value)?.slice(0, 40)}]`)
      }
    })

    it('on whole bodies of the wrong shape', async () => {
      for (const raw of [
        '[]',
        '[{}]',
        '"text"',
        '42',
        'true',
        'null',
        '{"__proto__":{"isAdmin":true}}',
        '{"constructor":{}}',
      ]) {
        for (const [method, path] of [
          ['POST', '/qr-codes'],
          ['POST', '/qr-codes/batch'],
          ['POST', '/api-keys'],
          ['PATCH', '/qr-codes/00000000-0000-4000-8000-000000000000'],
        ] as const) {
          const res = await client.request(method, path, { raw, headers: JSON_TYPE })
          expectClientError(res, `${method} ${path} ${raw}`)
        }
      }
    })

    it('on path ids and query strings', async () => {
      const ids = [
        '1',
        'null',
        "'%20OR%201=1--",
        '%00',
        '..%2F..%2Fetc%2Fpasswd',
        '00000000-0000-0000-0000-00000000000g',
        '00000000-0000-4000-8000-000000000000%20',
        'a'.repeat(2000),
        '%F0%9F%98%80',
        '%E0%A4%A',
      ]
      for (const id of ids) {
        for (const [method, path] of [
          ['GET', `/qr-codes/${id}`],
          ['PATCH', `/qr-codes/${id}`],
          ['DELETE', `/qr-codes/${id}`],
          ['POST', `/qr-codes/${id}/restore`],
          ['GET', `/qr-codes/${id}/analytics`],
          ['GET', `/qr-codes/${id}/image.png`],
          ['DELETE', `/api-keys/${id}`],
        ] as const) {
          const res = await client.request(method, path, method === 'PATCH' ? { body: { name: 'x' } } : {})
          expectClientError(res, `${method} ${path.slice(0, 60)}`)
        }
      }
      for (const query of [
        'limit=-0',
        'limit=1e2',
        'limit=Infinity',
        'limit=NaN',
        'limit[]=1',
        'limit=1&limit=2',
        "type=static'--",
        'offset=1e400',
        'offset=-1e400',
        'type=%00',
        '%ZZ=1',
      ]) {
        const res = await client.get(`/qr-codes?${query}`)
        if (res.status !== 200) expectClientError(res, query)
      }
    })

    it('on oversized and odd headers', async () => {
      const huge = await client.get('/qr-codes', {
        key: null,
        headers: { authorization: `Bearer ${'q'.repeat(8000)}` },
      })
      expectClientError(huge, 'huge authorization')
      const idem = await client.post('/qr-codes', textCode(), { headers: { 'idempotency-key': ' ' } })
      expect(idem.status).toBeLessThan(500)
    })
  })
})
