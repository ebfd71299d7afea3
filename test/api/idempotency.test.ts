import type { QrCode } from '@qrctl/contract'
import { ManualClock } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import {
  type Api,
  type ApiResponse,
  api,
  createCode,
  expectError,
  expectNoLeak,
  T0,
  textCode,
  UNLIMITED,
} from './helpers.js'

const HOUR = 3_600_000

describe.each(dialects())('Idempotency-Key on %s', (dialect) => {
  let server: TestServer
  const clock = new ManualClock(new Date(T0))

  beforeAll(async () => {
    server = await startServer({ dialect, clock, env: UNLIMITED })
  })
  afterAll(() => server.close())

  async function freshClient(): Promise<Api> {
    return api(server, (await server.createAccount()).apiKey)
  }
  const total = async (client: Api) => (await client.get('/qr-codes?limit=1')).body.total as number
  const withKey = (key: string) => ({ headers: { 'idempotency-key': key } })

  describe('happy', () => {
    it('answers the first response again for the same key and body, and creates nothing', async () => {
      const client = await freshClient()
      const first = await client.post('/qr-codes', textCode(), withKey('create-1'))
      expect(first.status).toBe(201)
      expect(first.headers.get('idempotent-replayed')).toBeNull()
      clock.advance(23 * HOUR)
      const again = await client.post('/qr-codes', textCode(), withKey('create-1'))
      expect(again.status).toBe(201)
      expect(again.headers.get('idempotent-replayed')).toBe('true')
      expect(again.body).toEqual(first.body)
      expect(await total(client)).toBe(1)
    })

    it('replays a batch answer', async () => {
      const client = await freshClient()
      const body = { codes: [textCode(), textCode({ name: 'two' })] }
      const first = await client.post('/qr-codes/batch', body, withKey('batch-1'))
      const again = await client.post('/qr-codes/batch', body, withKey('batch-1'))
      expect(again.body).toEqual(first.body)
      expect(await total(client)).toBe(2)
    })

    it('replays a restore answer', async () => {
      const client = await freshClient()
      const code = await createCode(client)
      await client.delete(`/qr-codes/${code.id}`)
      const first = await client.post(`/qr-codes/${code.id}/restore`, undefined, withKey('restore-1'))
      expect(first.status).toBe(200)
      const again = await client.post(`/qr-codes/${code.id}/restore`, undefined, withKey('restore-1'))
      expect(again).toMatchObject({ status: 200, body: first.body })
    })

    it('replays a showcase answer: the same slug, not a second showcase', async () => {
      const client = await freshClient()
      const code = await createCode(client)
      const body = { qrCodeId: code.id, title: 'Spring menu', slug: 'spring-menu-replay' }
      const first = await client.post('/showcases', body, withKey('showcase-1'))
      expect(first.status, first.text).toBe(201)
      const again = await client.post('/showcases', body, withKey('showcase-1'))
      expect(again.headers.get('idempotent-replayed')).toBe('true')
      expect(again.body).toEqual(first.body)
      expect((await client.get('/showcases')).body.total).toBe(1)
    })

    it('replays a 400 answer too: the same request gets the same verdict', async () => {
      const client = await freshClient()
      const bad = { name: 'x', contentType: 'email', content: 'nope' }
      const first = await client.post('/qr-codes', bad, withKey('bad-1'))
      expectError(first, 400, 'validation_error')
      const again = await client.post('/qr-codes', bad, withKey('bad-1'))
      expect(again.headers.get('idempotent-replayed')).toBe('true')
      expect(again.body.details.message).toBe(first.body.details.message)
    })

    it('treats the key as new after 24 hours', async () => {
      const client = await freshClient()
      const first = await client.post('/qr-codes', textCode(), withKey('daily'))
      clock.advance(24 * HOUR + 1000)
      const later = await client.post('/qr-codes', textCode(), withKey('daily'))
      expect(later.status).toBe(201)
      expect(later.headers.get('idempotent-replayed')).toBeNull()
      expect(later.body.data.id).not.toBe(first.body.data.id)
      expect(await total(client)).toBe(2)
      const third = await client.post('/qr-codes', textCode(), withKey('daily'))
      expect(third.body.data.id).toBe(later.body.data.id)
    })

    it('keeps keys per account', async () => {
      const a = await freshClient()
      const b = await freshClient()
      const first = await a.post('/qr-codes', textCode(), withKey('shared'))
      const other = await b.post('/qr-codes', textCode(), withKey('shared'))
      expect(other.status).toBe(201)
      expect(other.headers.get('idempotent-replayed')).toBeNull()
      expect(other.body.data.id).not.toBe(first.body.data.id)
    })

    it('creates each time without a key', async () => {
      const client = await freshClient()
      await client.post('/qr-codes', textCode())
      await client.post('/qr-codes', textCode())
      expect(await total(client)).toBe(2)
    })

    it('lets concurrent duplicates create exactly one code; the others get 409 or the replay', async () => {
      const client = await freshClient()
      const results = await Promise.all(
        Array.from({ length: 5 }, () => client.post('/qr-codes', textCode(), withKey('race'))),
      )
      for (const r of results) expect([201, 409]).toContain(r.status)
      const created = new Set(results.filter((r) => r.status === 201).map((r) => (r.body.data as QrCode).id))
      expect(created.size).toBe(1)
      for (const r of results.filter((r) => r.status === 409)) {
        expect(r.body.error).toBe('conflict')
        expect(r.body.details).toMatchObject({ reason: 'in_progress', idempotencyKey: 'race' })
      }
      expect(await total(client)).toBe(1)
    })
  })

  describe('errors', () => {
    it('answers 409 for the same key with another body, and creates nothing', async () => {
      const client = await freshClient()
      await client.post('/qr-codes', textCode(), withKey('k'))
      const res = await client.post('/qr-codes', textCode({ name: 'other' }), withKey('k'))
      expectError(res, 409, 'conflict')
      expect(res.body.details.message).toMatch(/different request/)
      expect(res.body.details).toMatchObject({ reason: 'mismatch', idempotencyKey: 'k' })
      expect(await total(client)).toBe(1)
    })

    it('answers 409 for the same key on another route', async () => {
      const client = await freshClient()
      await client.post('/qr-codes', textCode(), withKey('route'))
      expectError(
        await client.post('/qr-codes/batch', { codes: [textCode()] }, withKey('route')),
        409,
        'conflict',
      )
    })

    it('answers 400 for a key over 255 characters', async () => {
      const client = await freshClient()
      expectError(
        await client.post('/qr-codes', textCode(), withKey('k'.repeat(256))),
        400,
        'validation_error',
      )
      expect(await total(client)).toBe(0)
    })
  })

  describe('server errors', () => {
    it('does not remember a 500: the retry with the same key runs again', async () => {
      const client = await freshClient()
      // Take the table away so the insert fails inside the server.
      await server.ctx.db.schema.alterTable('qr_codes').renameTo('qr_codes_away').execute()
      let failed: ApiResponse
      try {
        failed = await client.post('/qr-codes', textCode(), withKey('flaky'))
      } finally {
        await server.ctx.db.schema.alterTable('qr_codes_away').renameTo('qr_codes').execute()
      }
      expectError(failed, 500, 'internal_error')
      expect(failed.body.details).toEqual({
        message: 'Something went wrong on our side',
        requestId: failed.headers.get('x-request-id'),
      })
      expectNoLeak(failed.text)
      const retry = await client.post('/qr-codes', textCode(), withKey('flaky'))
      expect(retry.status).toBe(201)
      expect(retry.headers.get('idempotent-replayed')).toBeNull()
      expect(await total(client)).toBe(1)
    })
  })

  describe('security', () => {
    it('never stores an API key secret: a key created with an Idempotency-Key is not replayed', async () => {
      const client = await freshClient()
      const first = await client.post('/api-keys', { name: 'ci' }, withKey('new-key'))
      expect(first.status).toBe(201)
      const secret: string = first.body.data.secret
      const rows = await server.ctx.db.selectFrom('idempotency_keys').selectAll().execute()
      expect(JSON.stringify(rows)).not.toContain(secret)
      const retry = await client.post('/api-keys', { name: 'ci' }, withKey('new-key'))
      expect(retry.status).toBe(201)
      expect(retry.headers.get('idempotent-replayed')).toBeNull()
      expect(retry.body.data.secret).not.toBe(secret)
      const rotated = await client.post(`/api-keys/${first.body.data.id}/rotate`, {}, withKey('rotate'))
      expect(rotated.status).toBe(201)
      const after = await server.ctx.db.selectFrom('idempotency_keys').selectAll().execute()
      expect(JSON.stringify(after)).not.toContain(rotated.body.data.secret)
    })
  })
})
