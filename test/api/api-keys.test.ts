import { createHash } from 'node:crypto'
import type { ApiKey } from '@qrctl/contract'
import { ManualClock } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { type Api, api, dumpDatabase, eventually, expectError, MISSING_ID, T0, UNLIMITED } from './helpers.js'

const KEY_FORMAT = /^qrk_[0-9A-Za-z]{40}$/

describe.each(dialects())('API keys on %s', (dialect) => {
  let server: TestServer
  const clock = new ManualClock(new Date(T0))

  beforeAll(async () => {
    server = await startServer({ dialect, clock, env: UNLIMITED })
  })
  afterAll(() => server.close())

  async function freshClient(scope?: 'read' | 'write' | 'read_write'): Promise<Api> {
    return api(server, (await server.createAccount(scope ? { scope } : {})).apiKey)
  }
  const works = async (key: string) => (await api(server, key).get('/qr-codes')).status
  const listed = async (client: Api): Promise<ApiKey[]> => (await client.get('/api-keys')).body.data

  describe('happy', () => {
    it('creates a key: qrk_ and 40 base62 characters, shown once, read_write by default', async () => {
      const client = await freshClient()
      const res = await client.post('/api-keys', { name: 'CI' })
      expect(res.status).toBe(201)
      const key = res.body.data
      expect(key.secret).toMatch(KEY_FORMAT)
      expect(key).toMatchObject({
        name: 'CI',
        environment: null,
        scope: 'read_write',
        prefix: key.secret.slice(0, 8),
        lastFour: key.secret.slice(-4),
        lastUsedAt: null,
        expiresAt: null,
      })
      expect(await works(key.secret)).toBe(200)
    })

    it('creates a key with a scope and an environment', async () => {
      const client = await freshClient()
      const res = await client.post('/api-keys', { name: 'reader', scope: 'read', environment: 'staging' })
      expect(res.body.data).toMatchObject({ scope: 'read', environment: 'staging' })
      expect(await works(res.body.data.secret)).toBe(200)
      expectError(await api(server, res.body.data.secret).post('/qr-codes', {}), 403, 'insufficient_scope')
    })

    it('stores only the SHA-256 of a key: the secret is in no column of any table', async () => {
      const client = await freshClient()
      const { secret, id } = (await client.post('/api-keys', { name: 'stored' })).body.data
      await api(server, secret).get('/qr-codes')
      const dump = await dumpDatabase(server)
      expect(dump).not.toContain(secret)
      expect(dump).not.toContain(secret.slice(4))
      const row = await server.ctx.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst()
      expect(row?.key_hash).toBe(createHash('sha256').update(secret).digest('hex'))
    })

    it('lists keys without secrets', async () => {
      const client = await freshClient()
      const created = (await client.post('/api-keys', { name: 'listed', environment: 'production' })).body
        .data
      const res = await client.get('/api-keys')
      expect(res.status).toBe(200)
      expect(res.text).not.toContain(created.secret)
      expect(res.text).not.toContain(client.key)
      const keys: ApiKey[] = res.body.data
      expect(keys).toHaveLength(2)
      for (const key of keys) expect(key).not.toHaveProperty('secret')
      const { secret: _secret, ...withoutSecret } = created
      expect(keys).toContainEqual(withoutSecret)
    })

    it('shows lastUsedAt after a key is used, updated at most once a minute', async () => {
      const client = await freshClient()
      const created = (await client.post('/api-keys', { name: 'used' })).body.data
      const lastUsed = async () => (await listed(client)).find((k) => k.id === created.id)?.lastUsedAt
      expect(await lastUsed()).toBeNull()
      const firstUse = clock.now().toISOString()
      await api(server, created.secret).get('/qr-codes')
      expect(await eventually(async () => (await lastUsed()) === firstUse)).toBe(true)
      clock.advance(30_000)
      await api(server, created.secret).get('/qr-codes')
      clock.advance(31_000)
      const secondUse = clock.now().toISOString()
      await api(server, created.secret).get('/qr-codes')
      expect(await eventually(async () => (await lastUsed()) === secondUse)).toBe(true)
    })

    it('revokes a key: it fails at once and leaves the list', async () => {
      const client = await freshClient()
      const created = (await client.post('/api-keys', { name: 'doomed' })).body.data
      expect(await works(created.secret)).toBe(200)
      const res = await client.delete(`/api-keys/${created.id}`)
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ success: true })
      expectError(await api(server, created.secret).get('/qr-codes'), 401, 'unauthorized')
      expect((await listed(client)).map((k) => k.id)).not.toContain(created.id)
      expectError(await client.delete(`/api-keys/${created.id}`), 404, 'not_found')
    })

    it('lets a key revoke itself', async () => {
      const client = await freshClient()
      const self = (await listed(client))[0] as ApiKey
      expect((await client.delete(`/api-keys/${self.id}`)).status).toBe(200)
      expectError(await client.get('/qr-codes'), 401, 'unauthorized')
    })

    it('rotates with no grace period: a new key with the same name, scope and environment; the old fails at once', async () => {
      const client = await freshClient()
      const old = (await client.post('/api-keys', { name: 'deploy', scope: 'write', environment: 'prod' }))
        .body.data
      const res = await client.post(`/api-keys/${old.id}/rotate`, {})
      expect(res.status).toBe(201)
      const fresh = res.body.data
      expect(fresh).toMatchObject({ name: 'deploy', scope: 'write', environment: 'prod', expiresAt: null })
      expect(fresh.id).not.toBe(old.id)
      expect(fresh.secret).toMatch(KEY_FORMAT)
      expect(fresh.secret).not.toBe(old.secret)
      expectError(await api(server, old.secret).post('/qr-codes', {}), 401, 'unauthorized')
      expectError(await api(server, fresh.secret).post('/qr-codes', {}), 400, 'validation_error')
      expect((await listed(client)).map((k) => k.id)).not.toContain(old.id)
    })

    it('rotates with a grace period: the old key works until the clock passes it', async () => {
      const client = await freshClient()
      const old = (await client.post('/api-keys', { name: 'graceful' })).body.data
      const res = await client.post(`/api-keys/${old.id}/rotate`, { gracePeriodSeconds: 3600 })
      expect(res.status).toBe(201)
      const until = new Date(clock.now().getTime() + 3_600_000).toISOString()
      expect((await listed(client)).find((k) => k.id === old.id)?.expiresAt).toBe(until)
      clock.advance(3_599_000)
      expect(await works(old.secret)).toBe(200)
      clock.advance(1000)
      expectError(await api(server, old.secret).get('/qr-codes'), 401, 'unauthorized')
      expect(await works(res.body.data.secret)).toBe(200)
      expect((await listed(client)).map((k) => k.id)).not.toContain(old.id)
    })
  })

  describe('errors', () => {
    it.each([
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'n'.repeat(101) }, 'name'],
      [{ name: 'k', scope: 'admin' }, 'scope'],
      [{ name: 'k', environment: 'prod env' }, 'environment'],
      [{ name: 'k', secret: `qrk_${'a'.repeat(40)}` }, ''],
    ])('answers 400 when creating %j', async (body, path) => {
      const client = await freshClient()
      const res = await client.post('/api-keys', body)
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues.map((i: { path: string }) => i.path)).toContain(path)
    })

    it.each([-1, 86_401, 1.5, '60', null])('answers 400 for gracePeriodSeconds %j', async (grace) => {
      const client = await freshClient()
      const old = (await client.post('/api-keys', { name: 'k' })).body.data
      expectError(
        await client.post(`/api-keys/${old.id}/rotate`, { gracePeriodSeconds: grace }),
        400,
        'validation_error',
      )
      expect(await works(old.secret)).toBe(200)
    })

    it('answers 404 for an unknown or revoked key, 400 for a malformed id', async () => {
      const client = await freshClient()
      expectError(await client.delete(`/api-keys/${MISSING_ID}`), 404, 'not_found')
      expectError(await client.post(`/api-keys/${MISSING_ID}/rotate`, {}), 404, 'not_found')
      const old = (await client.post('/api-keys', { name: 'k' })).body.data
      await client.delete(`/api-keys/${old.id}`)
      expectError(await client.post(`/api-keys/${old.id}/rotate`, {}), 404, 'not_found')
      expectError(await client.delete('/api-keys/key-1'), 400, 'validation_error')
    })
  })

  describe('security', () => {
    it.each(['read', 'write'] as const)(
      'refuses key management to a %s key with 403 insufficient_scope',
      async (scope) => {
        const owner = await freshClient()
        const target = (await owner.post('/api-keys', { name: 'target' })).body.data
        const account = await server.createAccount({ scope })
        const limited = api(server, account.apiKey)
        expectError(await limited.get('/api-keys'), 403, 'insufficient_scope')
        expectError(await limited.post('/api-keys', { name: 'escalate' }), 403, 'insufficient_scope')
        const own = await server.ctx.db
          .selectFrom('api_keys')
          .select('id')
          .where('account_id', '=', account.accountId)
          .execute()
        for (const { id } of own) {
          expectError(await limited.delete(`/api-keys/${id}`), 403, 'insufficient_scope')
          expectError(await limited.post(`/api-keys/${id}/rotate`, {}), 403, 'insufficient_scope')
        }
        expect(own.length).toBeGreaterThan(0)
        expect(await works(target.secret)).toBe(200)
      },
    )

    it('answers 404 for another account’s key id, and that key keeps working', async () => {
      const a = await freshClient()
      const b = await freshClient()
      const aKey = (await a.post('/api-keys', { name: 'mine' })).body.data
      expectError(await b.delete(`/api-keys/${aKey.id}`), 404, 'not_found')
      expectError(await b.post(`/api-keys/${aKey.id}/rotate`, {}), 404, 'not_found')
      expect(await works(aKey.secret)).toBe(200)
      expect((await listed(b)).map((k) => k.id)).not.toContain(aKey.id)
    })
  })
})
