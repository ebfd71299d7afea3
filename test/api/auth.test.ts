import { randomBytes } from 'node:crypto'
import { accounts } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { type Api, type ApiResponse, api, createCode, expectError, textCode, UNLIMITED } from './helpers.js'

/** A key of the right shape that was never issued. */
function unknownKey(): string {
  const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
  return `qrk_${[...randomBytes(40)].map((b) => base62[b % 62]).join('')}`
}

/** The body without the one field that differs per request. */
function withoutRequestId(res: ApiResponse) {
  const { requestId: _requestId, ...details } = res.body.details
  return { status: res.status, error: res.body.error, details }
}

describe.each(dialects())('authentication, plans and scopes on %s', (dialect) => {
  let server: TestServer
  let client: Api

  beforeAll(async () => {
    server = await startServer({ dialect, env: UNLIMITED })
    client = api(server, server.apiKey)
  })
  afterAll(() => server.close())

  describe('happy', () => {
    it('accepts a valid key, with the scheme in any case', async () => {
      expect((await client.get('/qr-codes')).status).toBe(200)
      const lower = await client.get('/qr-codes', { headers: { authorization: `bearer ${client.key}` } })
      expect(lower.status).toBe(200)
    })

    it('serves a past_due account: the subscription is still live', async () => {
      const account = await server.createAccount({ status: 'past_due' })
      const pastDue = api(server, account.apiKey)
      expect((await pastDue.get('/qr-codes')).status).toBe(200)
      expect((await pastDue.post('/qr-codes', textCode())).status).toBe(201)
    })

    it('lets a read key GET codes, one code and its images', async () => {
      const code = await createCode(client)
      const account = await server.createAccount({ scope: 'read' })
      const reader = api(server, account.apiKey)
      expect((await reader.get('/qr-codes')).status).toBe(200)
      const own = await createCode(api(server, await ownReadWriteKey(account.accountId)))
      expect((await reader.get(`/qr-codes/${own.id}`)).status).toBe(200)
      expect((await reader.get(`/qr-codes/${own.id}/image.svg`)).status).toBe(200)
      expect((await reader.get(`/qr-codes/${code.id}`)).status).toBe(404)
    })

    it('lets a write key create, change and delete', async () => {
      const account = await server.createAccount({ scope: 'write' })
      const writer = api(server, account.apiKey)
      const created = await writer.post('/qr-codes', textCode())
      expect(created.status).toBe(201)
      const id = created.body.data.id
      expect((await writer.patch(`/qr-codes/${id}`, { name: 'w' })).status).toBe(200)
      expect((await writer.delete(`/qr-codes/${id}`)).status).toBe(200)
      expect((await writer.post(`/qr-codes/${id}/restore`)).status).toBe(200)
      expect((await writer.post('/qr-codes/batch', { codes: [textCode()] })).status).toBe(201)
    })
  })

  /** A read_write key for an account made with a scoped one, to set up its codes. */
  async function ownReadWriteKey(accountId: string): Promise<string> {
    return (await accounts.createAccountKey(server.ctx, accountId, { name: 'rw', scope: 'read_write' }))
      .secret
  }

  describe('errors', () => {
    it('answers 401 unauthorized with one and the same body for missing, malformed, unknown, revoked and expired keys', async () => {
      const revoked = (await client.post('/api-keys', { name: 'revoked' })).body.data
      await client.delete(`/api-keys/${revoked.id}`)
      const expired = (await client.post('/api-keys', { name: 'expired' })).body.data
      await client.post(`/api-keys/${expired.id}/rotate`, { gracePeriodSeconds: 0 })
      const variants: Record<string, Record<string, string>> = {
        missing: {},
        'empty bearer': { authorization: 'Bearer ' },
        'basic scheme': { authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` },
        'no scheme': { authorization: client.key },
        'too short': { authorization: 'Bearer qrk_abc' },
        'wrong prefix': { authorization: `Bearer sk_${client.key.slice(4)}` },
        'extra words': { authorization: `Bearer ${client.key} extra` },
        'bad characters': { authorization: `Bearer qrk_${'-'.repeat(40)}` },
        unknown: { authorization: `Bearer ${unknownKey()}` },
        revoked: { authorization: `Bearer ${revoked.secret}` },
        rotated: { authorization: `Bearer ${expired.secret}` },
      }
      const answers = []
      for (const [name, headers] of Object.entries(variants)) {
        const res = await client.get('/qr-codes', { key: null, headers })
        expectError(res, 401, 'unauthorized')
        expect(res.body.details.requestId, name).toBe(res.headers.get('x-request-id'))
        expect(res.headers.get('www-authenticate'), name).toBe('Bearer realm="qrctl"')
        answers.push(withoutRequestId(res))
      }
      for (const answer of answers) expect(answer).toEqual(answers[0])
      expect(answers[0]?.details).toEqual({ message: expect.stringContaining('Bearer') })
    })

    it('answers 401 on every route, POSTs included, and creates nothing', async () => {
      const before = (await client.get('/qr-codes')).body.total
      expectError(await client.post('/qr-codes', textCode(), { key: unknownKey() }), 401, 'unauthorized')
      expectError(await client.get('/api-keys', { key: null }), 401, 'unauthorized')
      expectError(await client.get('/showcases', { key: null }), 401, 'unauthorized')
      expect((await client.get('/qr-codes')).body.total).toBe(before)
    })

    it('answers 403 plan_required for a free plan', async () => {
      const account = await server.createAccount({ plan: 'free' })
      const free = api(server, account.apiKey)
      expectError(await free.get('/qr-codes'), 403, 'plan_required')
      expectError(await free.post('/qr-codes', textCode()), 403, 'plan_required')
      expectError(await free.get('/api-keys'), 403, 'plan_required')
    })

    it('answers 403 plan_required for a canceled subscription', async () => {
      const account = await server.createAccount({ status: 'canceled' })
      expectError(await api(server, account.apiKey).get('/qr-codes'), 403, 'plan_required')
    })

    it('answers 403 plan_required once an account is moved to the free plan', async () => {
      const account = await server.createAccount()
      const later = api(server, account.apiKey)
      expect((await later.get('/qr-codes')).status).toBe(200)
      await accounts.setPlan(server.ctx, account.accountId, { plan: 'free' })
      expectError(await later.get('/qr-codes'), 403, 'plan_required')
    })
  })

  describe('security', () => {
    it('answers 403 insufficient_scope to a read key on POST, PATCH and DELETE, and changes nothing', async () => {
      const account = await server.createAccount({ scope: 'read' })
      const reader = api(server, account.apiKey)
      const rw = api(server, await ownReadWriteKey(account.accountId))
      const code = await createCode(rw)
      expectError(await reader.post('/qr-codes', textCode()), 403, 'insufficient_scope')
      expectError(await reader.post('/qr-codes/batch', { codes: [textCode()] }), 403, 'insufficient_scope')
      expectError(await reader.patch(`/qr-codes/${code.id}`, { name: 'x' }), 403, 'insufficient_scope')
      expectError(await reader.delete(`/qr-codes/${code.id}`), 403, 'insufficient_scope')
      expectError(await reader.post(`/qr-codes/${code.id}/restore`), 403, 'insufficient_scope')
      const after = await reader.get('/qr-codes')
      expect(after.body.total).toBe(1)
      expect(after.body.data[0]).toEqual(code)
    })

    it('answers 403 insufficient_scope to a write key on every GET', async () => {
      const account = await server.createAccount({ scope: 'write' })
      const writer = api(server, account.apiKey)
      const code = (await writer.post('/qr-codes', textCode())).body.data
      expectError(await writer.get('/qr-codes'), 403, 'insufficient_scope')
      expectError(await writer.get(`/qr-codes/${code.id}`), 403, 'insufficient_scope')
      expectError(await writer.get(`/qr-codes/${code.id}/image.png`), 403, 'insufficient_scope')
      expectError(await writer.get(`/qr-codes/${code.id}/analytics`), 403, 'insufficient_scope')
      expectError(await writer.get('/showcases'), 403, 'insufficient_scope')
    })

    it('holds the scope whatever the path’s spelling (case, trailing slash), and changes nothing', async () => {
      const account = await server.createAccount({ scope: 'read' })
      const reader = api(server, account.apiKey)
      const rw = api(server, await ownReadWriteKey(account.accountId))
      const code = await createCode(rw)
      for (const path of ['/qr-codes/', '/QR-CODES', '/Qr-Codes/']) {
        expectError(await reader.post(path, textCode()), 403, 'insufficient_scope')
      }
      expectError(await reader.patch(`/QR-codes/${code.id}/`, { name: 'x' }), 403, 'insufficient_scope')
      expectError(await reader.post('/API-KEYS', { name: 'sneaky' }), 403, 'insufficient_scope')
      expect((await reader.get('/qr-codes')).body.total).toBe(1)
      const names = (await rw.get('/api-keys')).body.data.map((key: { name: string }) => key.name)
      expect(names).not.toContain('sneaky')
    })

    it('says which scope the key has and which the request needs', async () => {
      const account = await server.createAccount({ scope: 'read' })
      const res = await api(server, account.apiKey).post('/qr-codes', textCode())
      expect(res.body.details.message).toMatch(/scope is read/)
    })
  })
})
