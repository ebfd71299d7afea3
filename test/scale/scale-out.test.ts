import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { missing } from '../../vitest.requirements.js'
import { startServer, type TestServer } from '../support/server.js'

const redisUrl = process.env.TEST_REDIS_URL
const postgresUrl = process.env.TEST_DATABASE_URL

async function api(server: TestServer, key: string, path: string, init: RequestInit = {}) {
  return fetch(`${server.baseUrl}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
  })
}

// DESIGN §11: N stateless processes behind a load balancer share PostgreSQL and Redis.
const noServices = missing(
  'PostgreSQL and Redis',
  Boolean(redisUrl && postgresUrl),
  'set TEST_DATABASE_URL=postgres://user@127.0.0.1:5432/test and TEST_REDIS_URL=redis://127.0.0.1:6379 (.ci/run does)',
)
describe.skipIf(noServices)('two server processes on one PostgreSQL database and one Redis', () => {
  let a: TestServer
  let b: TestServer

  beforeAll(async () => {
    a = await startServer({
      dialect: 'postgres',
      env: { REDIS_URL: redisUrl as string, RATE_LIMIT_PER_MINUTE: '10' },
    })
    b = await startServer({
      dialect: 'postgres',
      env: { REDIS_URL: redisUrl as string, RATE_LIMIT_PER_MINUTE: '10', DATABASE_URL: a.databaseUrl },
    })
  })
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  it('serves a code created through one process from the other', async () => {
    const created = await api(a, a.apiKey, '/qr-codes', {
      method: 'POST',
      body: JSON.stringify({
        name: 'shared',
        contentType: 'url',
        content: 'https://example.com/shared',
        type: 'dynamic',
      }),
    })
    expect(created.status).toBe(201)
    const { data } = (await created.json()) as { data: { id: string } }
    const fetched = await api(b, a.apiKey, `/qr-codes/${data.id}`)
    expect(fetched.status).toBe(200)
  })

  it('counts one rate-limit window across both processes', async () => {
    const { apiKey } = await a.createAccount()
    const statuses: number[] = []
    const remaining: string[] = []
    for (let i = 0; i < 12; i++) {
      const res = await api(i % 2 === 0 ? a : b, apiKey, '/qr-codes?limit=1')
      statuses.push(res.status)
      remaining.push(res.headers.get('x-ratelimit-remaining') ?? '')
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200))
    expect(statuses.slice(10)).toEqual([429, 429])
    expect(remaining.slice(0, 10)).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0'])
  })

  it('replays an idempotent POST sent to the other process', async () => {
    const body = JSON.stringify({ name: 'once', contentType: 'text', content: 'only once' })
    const headers = { 'idempotency-key': `scale-${Date.now()}` }
    const first = await api(a, a.apiKey, '/qr-codes', { method: 'POST', body, headers })
    const second = await api(b, a.apiKey, '/qr-codes', { method: 'POST', body, headers })
    expect(second.status).toBe(first.status)
    expect(second.headers.get('idempotent-replayed')).toBe('true')
    expect(((await second.json()) as { data: { id: string } }).data.id).toBe(
      ((await first.json()) as { data: { id: string } }).data.id,
    )
  })
})
