import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { type Api, type ApiResponse, api, createCode, expectError, textCode } from './helpers.js'

function expectRateLimitHeaders(res: ApiResponse, limit = 100): void {
  expect(res.headers.get('x-ratelimit-limit')).toBe(String(limit))
  const remaining = Number(res.headers.get('x-ratelimit-remaining'))
  const reset = Number(res.headers.get('x-ratelimit-reset'))
  expect(Number.isInteger(remaining) && remaining >= 0 && remaining < limit).toBe(true)
  expect(Number.isInteger(reset) && reset >= 1 && reset <= 60).toBe(true)
}

/** Sends `n` GETs one after another; answers the last. */
async function spend(client: Api, n: number, options = {}): Promise<ApiResponse> {
  let last: ApiResponse | undefined
  for (let i = 0; i < n; i++) last = await client.get('/qr-codes?limit=1', options)
  return last as ApiResponse
}

describe.each(dialects())('rate limits on %s', (dialect) => {
  let server: TestServer

  beforeAll(async () => {
    server = await startServer({ dialect })
  })
  afterAll(() => server.close())

  async function freshClient(opts: { rateLimitPerMinute?: number } = {}): Promise<Api> {
    return api(server, (await server.createAccount(opts)).apiKey)
  }

  describe('happy', () => {
    it('puts X-RateLimit-Limit, -Remaining and -Reset on every /api/v1 answer, errors included', async () => {
      const client = await freshClient()
      const code = await createCode(client)
      const answers = [
        await client.get('/qr-codes'),
        await client.post('/qr-codes', textCode()),
        await client.get(`/qr-codes/${code.id}`),
        await client.get(`/qr-codes/${code.id}/image.png`),
        await client.post('/qr-codes', {}),
        await client.get('/qr-codes/00000000-0000-4000-8000-000000000000'),
        await client.get('/no-such-route'),
        await client.request('POST', '/qr-codes', {
          raw: '{',
          headers: { 'content-type': 'application/json' },
        }),
        await client.request('POST', '/qr-codes', { raw: 'x', headers: { 'content-type': 'text/plain' } }),
        await api(server, (await server.createAccount({ plan: 'free' })).apiKey).get('/qr-codes'),
        await api(server, (await server.createAccount({ scope: 'read' })).apiKey).post('/qr-codes', {}),
      ]
      for (const res of answers) expectRateLimitHeaders(res)
      const remaining = answers.slice(0, 9).map((r) => Number(r.headers.get('x-ratelimit-remaining')))
      expect(remaining).toEqual([98, 97, 96, 95, 94, 93, 92, 91, 90])
    })

    it('counts each key on its own', async () => {
      const a = await freshClient()
      const b = await freshClient()
      await spend(a, 10)
      expect((await b.get('/qr-codes')).headers.get('x-ratelimit-remaining')).toBe('99')
    })
  })

  describe('errors', () => {
    it('answers the 101st request in a minute with 429 rate_limited, Retry-After and details.retryAfter', async () => {
      const client = await freshClient()
      const hundredth = await spend(client, 100)
      expect(hundredth.status).toBe(200)
      expect(hundredth.headers.get('x-ratelimit-remaining')).toBe('0')
      const res = await client.get('/qr-codes')
      expectError(res, 429, 'rate_limited')
      expectRateLimitHeaders(res)
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0')
      const retryAfter = res.body.details.retryAfter
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true)
      expect(res.headers.get('retry-after')).toBe(String(retryAfter))
      expect(res.headers.get('x-ratelimit-reset')).toBe(String(retryAfter))
    })

    it('does nothing for a request over the limit', async () => {
      const account = await server.createAccount()
      const client = api(server, account.apiKey)
      await spend(client, 100)
      expectError(await client.post('/qr-codes', textCode()), 429, 'rate_limited')
      const rows = await server.ctx.db
        .selectFrom('qr_codes')
        .select('id')
        .where('account_id', '=', account.accountId)
        .execute()
      expect(rows).toEqual([])
    })

    it('applies an account’s own limit, lower or higher', async () => {
      const low = await freshClient({ rateLimitPerMinute: 5 })
      const fifth = await spend(low, 5)
      expect(fifth.status).toBe(200)
      expect(fifth.headers.get('x-ratelimit-limit')).toBe('5')
      expectError(await low.get('/qr-codes'), 429, 'rate_limited')

      const high = await freshClient({ rateLimitPerMinute: 150 })
      const res = await spend(high, 101)
      expect(res.status).toBe(200)
      expectRateLimitHeaders(res, 150)
      expect(res.headers.get('x-ratelimit-remaining')).toBe('49')
    })
  })

  describe('security', () => {
    it('limits requests without a valid key per client address: the 101st bad-key request is a 429', async () => {
      const ipServer = await startServer({ dialect })
      try {
        const anon = api(ipServer, `qrk_${'x'.repeat(40)}`)
        const hundredth = await spend(anon, 100)
        expectError(hundredth, 401, 'unauthorized')
        expectRateLimitHeaders(hundredth)
        const res = await anon.get('/qr-codes')
        expectError(res, 429, 'rate_limited')
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/)
        expectError(await anon.get('/qr-codes', { key: null }), 429, 'rate_limited')
        // A valid key is counted on its own, not on the address.
        expect((await api(ipServer, ipServer.apiKey).get('/qr-codes')).status).toBe(200)
      } finally {
        await ipServer.close()
      }
    })

    it('ignores X-Forwarded-For unless TRUST_PROXY is on', async () => {
      const ipServer = await startServer({ dialect })
      try {
        const anon = api(ipServer, `qrk_${'y'.repeat(40)}`)
        for (let i = 0; i < 100; i++)
          await anon.get('/qr-codes', { headers: { 'x-forwarded-for': `203.0.113.${i}` } })
        const res = await anon.get('/qr-codes', { headers: { 'x-forwarded-for': '203.0.113.200' } })
        expectError(res, 429, 'rate_limited')
      } finally {
        await ipServer.close()
      }
    })

    it('limits per forwarded client address behind a trusted proxy', async () => {
      const proxied = await startServer({ dialect, env: { TRUST_PROXY: 'on' } })
      try {
        const anon = api(proxied, `qrk_${'z'.repeat(40)}`)
        const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } })
        await spend(anon, 100, from('203.0.113.7'))
        expectError(await anon.get('/qr-codes', from('203.0.113.7')), 429, 'rate_limited')
        expectError(await anon.get('/qr-codes', from('203.0.113.8')), 401, 'unauthorized')
      } finally {
        await proxied.close()
      }
    })

    it('keeps serving, and limiting per process, while Redis is unreachable', async () => {
      const isolated = await startServer({
        dialect,
        env: { REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_PER_MINUTE: '3' },
      })
      try {
        const client = api(isolated, isolated.apiKey)
        const third = await spend(client, 3)
        expect(third.status).toBe(200)
        expectRateLimitHeaders(third, 3)
        expectError(await client.get('/qr-codes'), 429, 'rate_limited')
      } finally {
        await isolated.close()
      }
    })

    it('uses RATE_LIMIT_PER_MINUTE as the default limit', async () => {
      const tight = await startServer({ dialect, env: { RATE_LIMIT_PER_MINUTE: '3' } })
      try {
        const client = api(tight, tight.apiKey)
        const third = await spend(client, 3)
        expect(third.headers.get('x-ratelimit-limit')).toBe('3')
        expectError(await client.get('/qr-codes'), 429, 'rate_limited')
      } finally {
        await tight.close()
      }
    })
  })
})
