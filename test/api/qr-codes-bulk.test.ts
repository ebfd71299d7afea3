import { ManualClock } from '@qrctl/server'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import {
  type Api,
  api,
  createCode,
  dynamicCode,
  expectError,
  MISSING_ID,
  T0,
  textCode,
  UNLIMITED,
} from './helpers.js'

describe.each(dialects())('bulk changes on %s', (dialect) => {
  let server: TestServer
  const clock = new ManualClock(new Date(T0))

  beforeAll(async () => {
    server = await startServer({ dialect, clock, env: UNLIMITED })
  })
  afterAll(() => server.close())

  async function freshClient(): Promise<Api> {
    return api(server, (await server.createAccount()).apiKey)
  }
  const get = async (client: Api, id: string) => (await client.get(`/qr-codes/${id}`)).body.data

  describe('POST /qr-codes/bulk-update', () => {
    it('sets isActive on every code named, in one answer, and counts a repeated id once', async () => {
      const client = await freshClient()
      const a = await createCode(client, dynamicCode())
      const b = await createCode(client, dynamicCode())
      clock.advance(1000)
      const res = await client.post('/qr-codes/bulk-update', {
        ids: [a.id, b.id, a.id],
        set: { isActive: false },
      })
      expect(res.status, res.text).toBe(200)
      expect(res.body).toEqual({ data: { updated: 2, errors: [] } })
      for (const code of [a, b]) {
        const now = await get(client, code.id)
        expect(now.isActive).toBe(false)
        expect(now.updatedAt).toBe(clock.now().toISOString())
      }
      expect((await client.get(`${server.baseUrl}/r/${a.shortCode}`, { key: null })).status).toBe(410)
    })

    it('leaves a code already as asked unchanged: same updatedAt, not counted', async () => {
      const client = await freshClient()
      const paused = await createCode(client, dynamicCode())
      await client.patch(`/qr-codes/${paused.id}`, { isActive: false })
      const before = await get(client, paused.id)
      const live = await createCode(client, dynamicCode())
      clock.advance(1000)
      const res = await client.post('/qr-codes/bulk-update', {
        ids: [paused.id, live.id],
        set: { isActive: false },
      })
      expect(res.body.data).toEqual({ updated: 1, errors: [] })
      expect((await get(client, paused.id)).updatedAt).toBe(before.updatedAt)
      const again = await client.post('/qr-codes/bulk-update', { ids: [paused.id], removeTags: ['absent'] })
      expect(again.body.data).toEqual({ updated: 0, errors: [] })
    })

    it('replaces tags with set.tags, then adds addTags, then removes removeTags', async () => {
      const client = await freshClient()
      const a = await createCode(client, textCode({ tags: ['old', 'keep'] }))
      const b = await createCode(client, textCode({ tags: ['x'] }))
      const added = await client.post('/qr-codes/bulk-update', {
        ids: [a.id, b.id],
        addTags: ['Spring', 'both'],
        removeTags: ['old', 'both'],
      })
      expect(added.body.data).toEqual({ updated: 2, errors: [] })
      expect((await get(client, a.id)).tags).toEqual(['keep', 'spring'])
      expect((await get(client, b.id)).tags).toEqual(['spring', 'x'])
      const set = await client.post('/qr-codes/bulk-update', {
        ids: [a.id, b.id],
        set: { tags: ['only'] },
        addTags: ['more'],
      })
      expect(set.body.data.updated).toBe(2)
      expect((await get(client, a.id)).tags).toEqual(['more', 'only'])
      expect((await client.get('/tags')).body.data).toEqual([
        { name: 'more', count: 2 },
        { name: 'only', count: 2 },
      ])
      expect((await client.get('/qr-codes?tag=spring')).body.total).toBe(0)
    })

    it('reports unknown, deleted and over-the-limit ids per id and changes the rest', async () => {
      const client = await freshClient()
      const ok = await createCode(client, textCode())
      const full = await createCode(client, textCode({ tags: Array.from({ length: 19 }, (_, i) => `t${i}`) }))
      const gone = await createCode(client, textCode())
      await client.delete(`/qr-codes/${gone.id}`)
      const res = await client.post('/qr-codes/bulk-update', {
        ids: [MISSING_ID, ok.id, gone.id, full.id],
        addTags: ['new1', 'new2'],
      })
      expect(res.status).toBe(200)
      expect(res.body.data).toEqual({
        updated: 1,
        errors: [
          'ids[0]: not found',
          'ids[2]: not found',
          'ids[3]: would have 21 tags; a code holds at most 20',
        ],
      })
      expect((await get(client, ok.id)).tags).toEqual(['new1', 'new2'])
      expect((await get(client, full.id)).tags).toHaveLength(19)
    })

    it.each([
      [{ ids: [] }, 'ids'],
      [{ ids: ['not-a-uuid'], set: { isActive: true } }, 'ids.1'],
      [{ ids: Array.from({ length: 101 }, () => MISSING_ID), set: { isActive: true } }, 'ids'],
      [{ ids: [MISSING_ID] }, 'set'],
      [{ ids: [MISSING_ID], set: {} }, 'set'],
      [{ ids: [MISSING_ID], addTags: ['bad!'] }, 'addTags.0'],
      [{ ids: [MISSING_ID], set: { name: 'x' } }, 'set'],
      [{ ids: [MISSING_ID], set: { isActive: 'no' } }, 'set.isActive'],
      [{ ids: [MISSING_ID], addTags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'addTags'],
      [{ ids: [MISSING_ID], set: { isActive: true }, extra: 1 }, ''],
    ])('answers 400 for the whole request for %j', async (body, path) => {
      const client = await freshClient()
      const code = await createCode(client, dynamicCode())
      const withCode = {
        ...body,
        ids: Array.isArray(body.ids) && body.ids.length === 1 ? [code.id, ...body.ids] : body.ids,
      }
      const res = await client.post('/qr-codes/bulk-update', withCode)
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues.map((i: { path: string }) => i.path)).toContain(path)
      expect((await get(client, code.id)).isActive).toBe(true)
    })
  })

  describe('one transaction each (DESIGN §17)', () => {
    /** Makes the database refuse any change to one code, as a fault would midway through a request. */
    async function refuseChangesTo(id: string): Promise<() => Promise<void>> {
      const db = server.ctx.db
      if (dialect === 'sqlite') {
        await sql`create trigger refuse_one before update on qr_codes when old.id = ${sql.lit(id)}
          begin select raise(abort, 'injected fault'); end`.execute(db)
        return async () => void (await sql`drop trigger refuse_one`.execute(db))
      }
      await sql`create function refuse_one() returns trigger language plpgsql as
        $$ begin raise exception 'injected fault'; end $$`.execute(db)
      await sql`create trigger refuse_one before update on qr_codes for each row
        when (old.id = ${sql.lit(id)}) execute function refuse_one()`.execute(db)
      return async () => {
        await sql`drop trigger refuse_one on qr_codes`.execute(db)
        await sql`drop function refuse_one()`.execute(db)
      }
    }

    it('changes none of the codes when the last one fails: bulk-update and bulk-delete roll back whole', async () => {
      const client = await freshClient()
      const a = await createCode(client, textCode({ tags: ['keep'] }))
      const b = await createCode(client, textCode({ tags: ['keep'] }))
      const c = await createCode(client, textCode({ tags: ['keep'] }))
      const allow = await refuseChangesTo(c.id)
      try {
        const update = await client.post('/qr-codes/bulk-update', {
          ids: [a.id, b.id, c.id],
          set: { isActive: false },
          addTags: ['gone'],
        })
        expect(update.status, update.text).toBeGreaterThanOrEqual(500)
        const del = await client.post('/qr-codes/bulk-delete', { ids: [a.id, b.id, c.id] })
        expect(del.status, del.text).toBeGreaterThanOrEqual(500)
      } finally {
        await allow()
      }
      for (const code of [a, b, c]) {
        const now = await get(client, code.id)
        expect([now.isActive, now.tags, now.updatedAt]).toEqual([true, ['keep'], code.updatedAt])
      }
      expect((await client.get('/qr-codes?tag=keep')).body.total).toBe(3)
      expect((await client.get('/qr-codes?tag=gone')).body.total).toBe(0)
    })
  })

  describe('POST /qr-codes/bulk-delete and bulk-restore', () => {
    it('deletes codes in one request and restores them, per-id errors for the rest', async () => {
      const client = await freshClient()
      const a = await createCode(client, textCode({ tags: ['camp'] }))
      const b = await createCode(client, textCode({ tags: ['camp'] }))
      const del = await client.post('/qr-codes/bulk-delete', { ids: [a.id, MISSING_ID, b.id, a.id] })
      expect(del.status).toBe(200)
      expect(del.body).toEqual({ data: { deleted: 2, errors: ['ids[1]: not found'] } })
      expect((await client.get('/qr-codes')).body.total).toBe(0)
      expect((await client.get('/tags')).body.data).toEqual([])
      const again = await client.post('/qr-codes/bulk-delete', { ids: [a.id] })
      expect(again.body.data).toEqual({ deleted: 0, errors: ['ids[0]: not found'] })

      const live = await createCode(client, textCode())
      const restore = await client.post('/qr-codes/bulk-restore', { ids: [live.id, a.id, MISSING_ID, b.id] })
      expect(restore.body).toEqual({
        data: { restored: 2, errors: ['ids[0]: not deleted', 'ids[2]: not found'] },
      })
      expect((await client.get('/qr-codes?tag=camp')).body.total).toBe(2)
    })

    it('does not restore a code past the 30-day window, nor one whose externalId a live code took', async () => {
      const client = await freshClient()
      const old = await createCode(client, textCode())
      const keyed = await createCode(client, textCode({ externalId: 'sku-1' }))
      const twin = await createCode(client, textCode({ externalId: 'sku-2' }))
      await client.post('/qr-codes/bulk-delete', { ids: [old.id, keyed.id, twin.id] })
      const taker = await createCode(client, textCode({ externalId: 'sku-1' }))
      clock.advance(31 * 86_400_000)
      const res = await client.post('/qr-codes/bulk-restore', { ids: [old.id, keyed.id] })
      expect(res.body.data).toEqual({ restored: 0, errors: ['ids[0]: not found', 'ids[1]: not found'] })
      clock.advance(-31 * 86_400_000)
      const within = await client.post('/qr-codes/bulk-restore', { ids: [old.id, keyed.id, twin.id] })
      expect(within.body.data).toEqual({
        restored: 2,
        errors: [`ids[1]: This externalId is already used by QR code ${taker.id}`],
      })
    })

    it('restores only the first of two deleted codes sharing an externalId, naming it for the second', async () => {
      const client = await freshClient()
      const first = await createCode(client, textCode({ externalId: 'dup' }))
      await client.delete(`/qr-codes/${first.id}`)
      const second = await createCode(client, textCode({ externalId: 'dup' }))
      await client.delete(`/qr-codes/${second.id}`)
      const res = await client.post('/qr-codes/bulk-restore', { ids: [first.id, second.id] })
      expect(res.status).toBe(200)
      expect(res.body.data).toEqual({
        restored: 1,
        errors: [`ids[1]: This externalId is already used by QR code ${first.id}`],
      })
      expect(
        (await client.get('/qr-codes?externalId=dup')).body.data.map((c: { id: string }) => c.id),
      ).toEqual([first.id])
    })

    it('answers 400 for a non-uuid id and for 101 ids, and changes nothing', async () => {
      const client = await freshClient()
      const code = await createCode(client)
      for (const route of ['/qr-codes/bulk-delete', '/qr-codes/bulk-restore']) {
        expectError(await client.post(route, { ids: [code.id, 'x'] }), 400, 'validation_error')
        expectError(
          await client.post(route, { ids: Array.from({ length: 101 }, () => code.id) }),
          400,
          'validation_error',
        )
        expectError(await client.post(route, { ids: [] }), 400, 'validation_error')
        expectError(await client.post(route, {}), 400, 'validation_error')
      }
      expect((await client.get('/qr-codes')).body.total).toBe(1)
    })

    it('replays an Idempotency-Key and deletes nothing the second time', async () => {
      const client = await freshClient()
      const code = await createCode(client)
      const headers = { 'idempotency-key': 'bulk-1' }
      const first = await client.post('/qr-codes/bulk-delete', { ids: [code.id] }, { headers })
      await client.post('/qr-codes/bulk-restore', { ids: [code.id] })
      const replay = await client.post('/qr-codes/bulk-delete', { ids: [code.id] }, { headers })
      expect(replay.body).toEqual(first.body)
      expect(replay.headers.get('idempotent-replayed')).toBe('true')
      expect((await client.get('/qr-codes')).body.total).toBe(1)
    })
  })

  describe('security', () => {
    it('treats another account’s ids as not found and never changes them', async () => {
      const a = await freshClient()
      const b = await freshClient()
      const theirs = await createCode(a, dynamicCode({ tags: ['mine'] }))
      const update = await b.post('/qr-codes/bulk-update', {
        ids: [theirs.id],
        set: { isActive: false, tags: [] },
      })
      expect(update.body.data).toEqual({ updated: 0, errors: ['ids[0]: not found'] })
      const del = await b.post('/qr-codes/bulk-delete', { ids: [theirs.id] })
      expect(del.body.data).toEqual({ deleted: 0, errors: ['ids[0]: not found'] })
      await a.delete(`/qr-codes/${theirs.id}`)
      const restore = await b.post('/qr-codes/bulk-restore', { ids: [theirs.id] })
      expect(restore.body.data).toEqual({ restored: 0, errors: ['ids[0]: not found'] })
      expect((await a.get('/qr-codes?deleted=true')).body.data[0]).toMatchObject({
        isActive: true,
        tags: ['mine'],
      })
    })

    it('answers 403 insufficient_scope to a read-only key', async () => {
      const reader = api(server, (await server.createAccount({ scope: 'read' })).apiKey)
      for (const route of ['/qr-codes/bulk-update', '/qr-codes/bulk-delete', '/qr-codes/bulk-restore']) {
        expectError(
          await reader.post(route, { ids: [MISSING_ID], set: { isActive: true } }),
          403,
          'insufficient_scope',
        )
      }
    })
  })
})
