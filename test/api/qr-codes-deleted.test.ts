import { ManualClock } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { type Api, api, createCode, dynamicCode, expectError, T0, textCode, UNLIMITED } from './helpers.js'

const DAY = 86_400_000

describe.each(dialects())('GET /qr-codes?deleted=true and ?shortCode= on %s', (dialect) => {
  let server: TestServer
  const clock = new ManualClock(new Date(T0))

  beforeAll(async () => {
    server = await startServer({ dialect, clock, env: UNLIMITED })
  })
  afterAll(() => server.close())

  async function freshClient(): Promise<Api> {
    const account = await server.createAccount()
    return api(server, account.apiKey)
  }

  describe('happy', () => {
    it('lists deleted codes newest deletion first, with deletedAt and purgeAt 30 days later', async () => {
      const client = await freshClient()
      const live = await createCode(client, textCode({ name: 'live' }))
      const a = await createCode(client, textCode({ name: 'a' }))
      const b = await createCode(client, textCode({ name: 'b' }))
      clock.advance(1000)
      const deletedA = clock.now().toISOString()
      await client.delete(`/qr-codes/${a.id}`)
      clock.advance(1000)
      const deletedB = clock.now().toISOString()
      await client.delete(`/qr-codes/${b.id}`)
      // a was deleted first, so b comes first, although a was created first.
      const res = await client.get('/qr-codes?deleted=true')
      expect(res.status).toBe(200)
      expect(res.body.total).toBe(2)
      expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([b.id, a.id])
      expect(res.body.data[0]).toMatchObject({
        deletedAt: deletedB,
        purgeAt: new Date(Date.parse(deletedB) + 30 * DAY).toISOString(),
      })
      expect(res.body.data[1].deletedAt).toBe(deletedA)
      // Live codes carry neither field, in lists and reads.
      const lived = await client.get('/qr-codes')
      expect(lived.body.data.map((c: { id: string }) => c.id)).toEqual([live.id])
      expect(lived.body.data[0]).not.toHaveProperty('deletedAt')
      expect((await client.get(`/qr-codes/${live.id}`)).body.data).not.toHaveProperty('purgeAt')
      expect((await client.get('/qr-codes?deleted=false')).body.total).toBe(1)
    })

    it('leaves out codes past the restore window, and restored ones', async () => {
      const client = await freshClient()
      const old = await createCode(client, textCode({ name: 'old' }))
      await client.delete(`/qr-codes/${old.id}`)
      clock.advance(29 * DAY)
      const recent = await createCode(client, textCode({ name: 'recent' }))
      await client.delete(`/qr-codes/${recent.id}`)
      const back = await createCode(client, textCode({ name: 'back' }))
      await client.delete(`/qr-codes/${back.id}`)
      await client.post(`/qr-codes/${back.id}/restore`)
      expect((await client.get('/qr-codes?deleted=true')).body.total).toBe(2)
      clock.advance(DAY + 1000)
      const res = await client.get('/qr-codes?deleted=true')
      expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([recent.id])
      expect((await client.post(`/qr-codes/${old.id}/restore`)).status).toBe(404)
    })

    it('combines deleted=true with type and externalId filters and paging', async () => {
      const client = await freshClient()
      const ids: string[] = []
      for (let i = 0; i < 3; i++) {
        const code = await createCode(client, dynamicCode({ externalId: `d${i}` }))
        clock.advance(1000)
        await client.delete(`/qr-codes/${code.id}`)
        ids.push(code.id)
      }
      const stat = await createCode(client, textCode())
      await client.delete(`/qr-codes/${stat.id}`)
      expect((await client.get('/qr-codes?deleted=true&type=dynamic')).body.total).toBe(3)
      const byExternal = await client.get('/qr-codes?deleted=true&externalId=d1')
      expect(byExternal.body.data.map((c: { id: string }) => c.id)).toEqual([ids[1]])
      const page = await client.get('/qr-codes?deleted=true&type=dynamic&limit=1&offset=1')
      expect(page.body.data.map((c: { id: string }) => c.id)).toEqual([ids[1]])
    })

    it('finds a dynamic code by its short code', async () => {
      const client = await freshClient()
      const code = await createCode(client, dynamicCode())
      await createCode(client, dynamicCode())
      const res = await client.get(`/qr-codes?shortCode=${code.shortCode}`)
      expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([code.id])
    })
  })

  describe('errors', () => {
    it('answers 400 for a deleted value that is not a boolean and a malformed short code', async () => {
      const client = await freshClient()
      expectError(await client.get('/qr-codes?deleted=yes'), 400, 'validation_error')
      const short = await client.get('/qr-codes?shortCode=abc')
      expectError(short, 400, 'validation_error')
      expect(short.body.details.issues[0].path).toBe('shortCode')
    })
  })

  describe('security', () => {
    it('never lists another account’s deleted codes', async () => {
      const a = await freshClient()
      const b = await freshClient()
      const code = await createCode(a, textCode())
      await a.delete(`/qr-codes/${code.id}`)
      expect((await b.get('/qr-codes?deleted=true')).body).toMatchObject({ data: [], total: 0 })
    })
  })
})
