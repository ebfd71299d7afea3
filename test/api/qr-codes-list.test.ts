import { ManualClock } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { type Api, api, createCode, dynamicCode, expectError, T0, textCode, UNLIMITED } from './helpers.js'

describe.each(dialects())('GET /qr-codes on %s', (dialect) => {
  let server: TestServer
  const clock = new ManualClock(new Date(T0))

  beforeAll(async () => {
    server = await startServer({ dialect, clock, env: UNLIMITED })
  })
  afterAll(() => server.close())

  /** A client for a fresh account, so each test sees only its own codes. */
  async function freshClient(): Promise<Api> {
    const account = await server.createAccount()
    return api(server, account.apiKey)
  }

  /** Creates `n` codes one second apart; returns their ids, oldest first. */
  async function createSeries(client: Api, n: number, make = (i: number) => textCode({ name: `code ${i}` })) {
    const ids: string[] = []
    for (let i = 0; i < n; i++) {
      clock.advance(1000)
      ids.push((await createCode(client, make(i))).id)
    }
    return ids
  }

  describe('happy', () => {
    it('lists codes newest first with total, and the default limit and offset', async () => {
      const client = await freshClient()
      const ids = await createSeries(client, 3)
      const res = await client.get('/qr-codes')
      expect(res.status).toBe(200)
      expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([...ids].reverse())
      expect(res.body).toMatchObject({ total: 3, limit: 50, offset: 0 })
    })

    it('orders codes created in the same instant by id, newest-first order stays stable across pages', async () => {
      const client = await freshClient()
      await Promise.all([1, 2, 3, 4].map(() => createCode(client)))
      const all = await client.get('/qr-codes')
      const page1 = await client.get('/qr-codes?limit=2')
      const page2 = await client.get('/qr-codes?limit=2&offset=2')
      const ids = all.body.data.map((c: { id: string }) => c.id)
      expect([...page1.body.data, ...page2.body.data].map((c: { id: string }) => c.id)).toEqual(ids)
      expect(ids).toEqual([...ids].sort().reverse())
    })

    it('pages with limit and offset and reports them as applied, total over all pages', async () => {
      const client = await freshClient()
      const ids = (await createSeries(client, 5)).reverse()
      const res = await client.get('/qr-codes?limit=2&offset=1')
      expect(res.status).toBe(200)
      expect(res.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(1, 3))
      expect(res.body).toMatchObject({ total: 5, limit: 2, offset: 1 })
      const past = await client.get('/qr-codes?offset=10')
      expect(past.body).toMatchObject({ data: [], total: 5, offset: 10 })
    })

    it('accepts limit 1 and 100', async () => {
      const client = await freshClient()
      await createSeries(client, 2)
      expect((await client.get('/qr-codes?limit=1')).body.data).toHaveLength(1)
      expect((await client.get('/qr-codes?limit=100')).body).toMatchObject({ limit: 100, total: 2 })
    })

    it('filters by type, and total counts only the matching codes', async () => {
      const client = await freshClient()
      await createSeries(client, 2)
      const dynamicId = (await createCode(client, dynamicCode())).id
      const dynamic = await client.get('/qr-codes?type=dynamic')
      expect(dynamic.body.data.map((c: { id: string }) => c.id)).toEqual([dynamicId])
      expect(dynamic.body.total).toBe(1)
      const statics = await client.get('/qr-codes?type=static')
      expect(statics.body.total).toBe(2)
      expect(statics.body.data.every((c: { type: string }) => c.type === 'static')).toBe(true)
    })

    it('leaves deleted codes out of data and total', async () => {
      const client = await freshClient()
      const ids = await createSeries(client, 3)
      expect((await client.delete(`/qr-codes/${ids[1]}`)).status).toBe(200)
      const res = await client.get('/qr-codes')
      expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[0]])
      expect(res.body.total).toBe(2)
    })

    it('answers an empty page for an account without codes', async () => {
      const client = await freshClient()
      expect((await client.get('/qr-codes')).body).toEqual({ data: [], total: 0, limit: 50, offset: 0 })
    })
  })

  describe('errors', () => {
    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['offset=-1', 'offset'],
      ['type=qr', 'type'],
      ['colour=red', ''],
    ])('answers 400 validation_error for %s', async (query, path) => {
      const res = await api(server, server.apiKey).get(`/qr-codes?${query}`)
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues.map((i: { path: string }) => i.path)).toContain(path)
    })
  })

  describe('security', () => {
    it('never lists another account’s codes', async () => {
      const a = await freshClient()
      const b = await freshClient()
      await createSeries(a, 2)
      const res = await b.get('/qr-codes')
      expect(res.body).toMatchObject({ data: [], total: 0 })
    })
  })
})
