import { ManualClock } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import {
  type Api,
  api,
  createCode,
  dynamicCode,
  expectError,
  expectNoLeak,
  T0,
  textCode,
  UNLIMITED,
} from './helpers.js'

describe.each(dialects())('externalId on %s', (dialect) => {
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
    it('stores the externalId, returns it, and null on codes without one', async () => {
      const client = await freshClient()
      const code = await createCode(client, textCode({ externalId: 'sku-1' }))
      expect(code.externalId).toBe('sku-1')
      expect((await client.get(`/qr-codes/${code.id}`)).body.data.externalId).toBe('sku-1')
      expect((await createCode(client)).externalId).toBeNull()
    })

    it('finds a code by ?externalId=', async () => {
      const client = await freshClient()
      const wanted = await createCode(client, textCode({ externalId: 'row 7/ä' }))
      await createCode(client, textCode({ externalId: 'row 8' }))
      const res = await client.get(`/qr-codes?externalId=${encodeURIComponent('row 7/ä')}`)
      expect(res.status).toBe(200)
      expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([wanted.id])
      expect(res.body.total).toBe(1)
      expect((await client.get('/qr-codes?externalId=none')).body).toMatchObject({ data: [], total: 0 })
    })

    it('frees the externalId when its code is deleted', async () => {
      const client = await freshClient()
      const first = await createCode(client, textCode({ externalId: 'again' }))
      expect((await client.delete(`/qr-codes/${first.id}`)).status).toBe(200)
      const second = await createCode(client, textCode({ externalId: 'again' }))
      expect(second.id).not.toBe(first.id)
    })

    it('sets, changes and clears the externalId with PATCH', async () => {
      const client = await freshClient()
      const code = await createCode(client)
      const set = await client.patch(`/qr-codes/${code.id}`, { externalId: 'later' })
      expect(set.body.data.externalId).toBe('later')
      const cleared = await client.patch(`/qr-codes/${code.id}`, { externalId: null })
      expect(cleared.body.data.externalId).toBeNull()
      expect((await client.get(`/qr-codes/${code.id}`)).body.data.externalId).toBeNull()
      // Cleared, it is free for another code.
      await createCode(client, textCode({ externalId: 'later' }))
    })

    it('lets another account use the same externalId', async () => {
      const a = await freshClient()
      const b = await freshClient()
      await createCode(a, textCode({ externalId: 'shared' }))
      await createCode(b, textCode({ externalId: 'shared' }))
      expect((await b.get('/qr-codes?externalId=shared')).body.total).toBe(1)
    })
  })

  describe('errors', () => {
    it('answers 409 conflict naming the code that holds the externalId', async () => {
      const client = await freshClient()
      const holder = await createCode(client, dynamicCode({ externalId: 'menu' }))
      const res = await client.post('/qr-codes', textCode({ externalId: 'menu' }))
      expectError(res, 409, 'conflict')
      expect(res.body.details.existingId).toBe(holder.id)
      expect(res.body.details.message).toContain(holder.id)
      expect((await client.get('/qr-codes')).body.total).toBe(1)
    })

    it('refuses a PATCH to an externalId another code holds, and restoring a code whose externalId was taken', async () => {
      const client = await freshClient()
      const a = await createCode(client, textCode({ externalId: 'a' }))
      const b = await createCode(client, textCode({ externalId: 'b' }))
      const patch = await client.patch(`/qr-codes/${b.id}`, { externalId: 'a' })
      expectError(patch, 409, 'conflict')
      expect(patch.body.details.existingId).toBe(a.id)
      expectNoLeak(patch.text)
      await client.delete(`/qr-codes/${a.id}`)
      const c = await createCode(client, textCode({ externalId: 'a' }))
      const restore = await client.post(`/qr-codes/${a.id}/restore`)
      expectError(restore, 409, 'conflict')
      expect(restore.body.details.existingId).toBe(c.id)
      expectNoLeak(restore.text)
    })

    it('answers 400 for an empty or too long externalId', async () => {
      const client = await freshClient()
      for (const externalId of ['', 'x'.repeat(256)]) {
        const res = await client.post('/qr-codes', textCode({ externalId }))
        expectError(res, 400, 'validation_error')
        expect(res.body.details.issues[0].path).toBe('externalId')
      }
      expect((await client.post('/qr-codes', textCode({ externalId: 'x'.repeat(255) }))).status).toBe(201)
    })

    it('creates one code when several creates race for one externalId', async () => {
      const client = await freshClient()
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          client.post('/qr-codes', textCode({ name: `n${i}`, externalId: 'race' })),
        ),
      )
      const created = answers.filter((r) => r.status === 201)
      expect(created).toHaveLength(1)
      const winner = created[0]?.body.data.id
      for (const r of answers.filter((r) => r.status !== 201)) {
        expectError(r, 409, 'conflict')
        expect(r.body.details.existingId).toBe(winner)
      }
      expect((await client.get('/qr-codes?externalId=race')).body.total).toBe(1)
    })
  })

  describe('batch', () => {
    it('reports a taken externalId as that item’s error and creates the rest', async () => {
      const client = await freshClient()
      const holder = await createCode(client, textCode({ externalId: 'x-1' }))
      const res = await client.post('/qr-codes/batch', {
        codes: [
          textCode({ name: 'new', externalId: 'x-0' }),
          textCode({ name: 'dup', externalId: 'x-1' }),
          textCode({ name: 'bad', content: '' }),
          textCode({ name: 'none' }),
        ],
      })
      expect(res.status).toBe(201)
      expect(res.body.data.created).toBe(2)
      expect(res.body.data.items.map((c: { name: string }) => c.name)).toEqual(['new', 'none'])
      expect(res.body.data.errors).toEqual([
        `codes[1].externalId: This externalId is already used by QR code ${holder.id}`,
        expect.stringMatching(/^codes\[2\]\.content: /),
      ])
    })

    it('creates the first of two items with one externalId and names it in the second’s error', async () => {
      const client = await freshClient()
      const res = await client.post('/qr-codes/batch', {
        codes: [
          textCode({ name: 'first', externalId: 'twin' }),
          textCode({ name: 'second', externalId: 'twin' }),
        ],
      })
      expect(res.body.data.created).toBe(1)
      const first = res.body.data.items[0]
      expect(first.name).toBe('first')
      expect(res.body.data.errors).toEqual([
        `codes[1].externalId: This externalId is already used by QR code ${first.id}`,
      ])
    })

    it('reports taken externalIds in a dry run and creates nothing', async () => {
      const client = await freshClient()
      const holder = await createCode(client, textCode({ externalId: 'dry' }))
      const res = await client.post('/qr-codes/batch?dryRun=true', {
        codes: [textCode({ externalId: 'dry' }), textCode({ externalId: 'wet' })],
      })
      expect(res.body.data).toEqual({
        created: 0,
        errors: [`codes[0].externalId: This externalId is already used by QR code ${holder.id}`],
        items: [],
      })
      expect((await client.get('/qr-codes')).body.total).toBe(1)
    })

    it('creates each externalId once when two batches race', async () => {
      const client = await freshClient()
      const codes = Array.from({ length: 20 }, (_, i) => textCode({ name: `r${i}`, externalId: `race-${i}` }))
      const [a, b] = await Promise.all([
        client.post('/qr-codes/batch', { codes }),
        client.post('/qr-codes/batch', { codes }),
      ])
      expect([a?.status, b?.status]).toEqual([201, 201])
      expect((a?.body.data.created ?? 0) + (b?.body.data.created ?? 0)).toBe(20)
      expect((a?.body.data.errors.length ?? 0) + (b?.body.data.errors.length ?? 0)).toBe(20)
      expect((await client.get('/qr-codes?limit=100')).body.total).toBe(20)
    })
  })

  describe('security', () => {
    it('does not name another account’s code: its externalId is not taken for you', async () => {
      const a = await freshClient()
      const b = await freshClient()
      const held = await createCode(a, textCode({ externalId: 'private' }))
      const res = await b.post('/qr-codes', textCode({ externalId: 'private' }))
      expect(res.status).toBe(201)
      expect(res.text).not.toContain(held.id)
      expect((await b.get('/qr-codes?externalId=private')).body.data[0].id).not.toBe(held.id)
    })
  })
})
