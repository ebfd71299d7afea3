import type { QrCode } from '@qrctl/contract'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { type Api, api, dynamicCode, expectError, textCode, UNLIMITED } from './helpers.js'

describe.each(dialects())('POST /qr-codes/batch on %s', (dialect) => {
  let server: TestServer

  beforeAll(async () => {
    server = await startServer({ dialect, env: UNLIMITED })
  })
  afterAll(() => server.close())

  async function freshClient(): Promise<Api> {
    return api(server, (await server.createAccount()).apiKey)
  }
  const total = async (client: Api) => (await client.get('/qr-codes?limit=1')).body.total as number

  describe('happy', () => {
    it('creates every item and answers them in input order', async () => {
      const client = await freshClient()
      const codes = [textCode({ name: 'a' }), dynamicCode({ name: 'b' }), textCode({ name: 'c' })]
      const res = await client.post('/qr-codes/batch', { codes })
      expect(res.status).toBe(201)
      expect(res.body.data).toMatchObject({ created: 3, errors: [] })
      expect(res.body.data.items.map((c: QrCode) => c.name)).toEqual(['a', 'b', 'c'])
      expect(res.body.data.items[1]).toMatchObject({ type: 'dynamic', shortCode: expect.any(String) })
      expect(await total(client)).toBe(3)
    })

    it('creates the valid items and reports each invalid one with its index and field', async () => {
      const client = await freshClient()
      const codes = [
        textCode({ name: 'ok 0' }),
        { name: 'bad email', contentType: 'email', content: 'nope' },
        textCode({ name: 'ok 2' }),
        dynamicCode({ name: 'bad target', targetUrl: 'ftp://example.com' }),
        textCode({ name: 'ok 4' }),
      ]
      const res = await client.post('/qr-codes/batch', { codes })
      expect(res.status).toBe(201)
      expect(res.body.data.created).toBe(3)
      expect(res.body.data.errors).toEqual([
        expect.stringMatching(/^codes\[1\]\.content: email content must be/),
        'codes[3].targetUrl: Must be an absolute http:// or https:// URL',
      ])
      expect(res.body.data.items.map((c: QrCode) => c.name)).toEqual(['ok 0', 'ok 2', 'ok 4'])
      expect(await total(client)).toBe(3)
    })

    it('reports items that are not objects, missing fields, and content that does not fit', async () => {
      const client = await freshClient()
      const codes = [42, null, 'text', [], { name: 'x' }, textCode({ content: 'x'.repeat(3000) })]
      const res = await client.post('/qr-codes/batch', { codes })
      expect(res.status).toBe(201)
      const { created, errors } = res.body.data
      expect(created).toBe(0)
      for (const i of [0, 1, 2, 3])
        expect(errors).toContainEqual(expect.stringMatching(new RegExp(`^codes\\[${i}\\]: `)))
      expect(errors).toContainEqual(expect.stringMatching(/^codes\[4\]\.contentType: /))
      expect(errors).toContainEqual(expect.stringMatching(/^codes\[5\]\.content: .*at most 2331 bytes fit/))
      expect(await total(client)).toBe(0)
    })

    it('accepts 100 items', async () => {
      const client = await freshClient()
      const codes = Array.from({ length: 100 }, (_, i) => textCode({ name: `n${i}` }))
      const res = await client.post('/qr-codes/batch', { codes })
      expect(res.status).toBe(201)
      expect(res.body.data.created).toBe(100)
      expect(await total(client)).toBe(100)
    })

    it.each(['true', '1'])('validates and creates nothing with dryRun=%s', async (flag) => {
      const client = await freshClient()
      const codes = [textCode(), { name: 'bad', contentType: 'phone', content: 'x' }]
      const res = await client.post(`/qr-codes/batch?dryRun=${flag}`, { codes })
      expect(res.status).toBe(201)
      expect(res.body.data).toEqual({
        created: 0,
        errors: [expect.stringMatching(/^codes\[1\]\.content: phone content/)],
        items: [],
      })
      expect(await total(client)).toBe(0)
    })

    it('creates with dryRun=false', async () => {
      const client = await freshClient()
      const res = await client.post('/qr-codes/batch?dryRun=false', { codes: [textCode()] })
      expect(res.body.data.created).toBe(1)
    })
  })

  describe('errors', () => {
    it.each([
      ['0 items', { codes: [] }],
      ['101 items', { codes: Array.from({ length: 101 }, () => textCode()) }],
      ['no codes', {}],
      ['codes as an object', { codes: { 0: textCode() } }],
      ['codes as a string', { codes: 'a,b' }],
      ['an unknown field', { codes: [textCode()], extra: true }],
      ['an array body', [textCode()]],
    ])('answers 400 and creates nothing for %s', async (_what, body) => {
      const client = await freshClient()
      const res = await client.post('/qr-codes/batch', body)
      expectError(res, 400, 'validation_error')
      expect(await total(client)).toBe(0)
    })

    it('answers 400 for a scalar JSON body', async () => {
      const client = await freshClient()
      const res = await client.request('POST', '/qr-codes/batch', {
        raw: '"codes"',
        headers: { 'content-type': 'application/json' },
      })
      expect(res.status).toBe(400)
      expect(['invalid_json', 'validation_error']).toContain(res.body.error)
    })

    it('answers 400 for dryRun=yes', async () => {
      const client = await freshClient()
      expectError(
        await client.post('/qr-codes/batch?dryRun=yes', { codes: [textCode()] }),
        400,
        'validation_error',
      )
      expect(await total(client)).toBe(0)
    })
  })
})
