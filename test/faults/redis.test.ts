import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api } from '../api/helpers.js'
import { type PrivateRedis, runLoad, sleep, startPrivateRedis, waitFor } from '../support/faults.js'
import { freePort, startServer, type TestServer } from '../support/server.js'

/**
 * Issue #12, item 3. Two server processes' worth of limiters (two servers in this process)
 * share limits through a private redis-server the test started on a free port. Killed under
 * load, no request may wait on Redis: the slowest stays under 1.5 s, and limits fall back to
 * per process. Started again on the same port, limits are shared again. Redis is independent
 * of the database, so this runs on SQLite only.
 */
describe('Redis faults', () => {
  let redis: PrivateRedis
  let one: TestServer
  let two: TestServer
  const figures: Record<string, unknown> = {}

  beforeAll(async () => {
    redis = await startPrivateRedis(await freePort())
    const env = { REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: '1000000' }
    one = await startServer({ env })
    two = await startServer({ env: { ...env, DATABASE_URL: one.databaseUrl } })
  })

  afterAll(async () => {
    console.info('Redis fault figures', JSON.stringify(figures))
    await two?.close()
    await one?.close()
    await redis?.kill()
  })

  /** 6 requests on each server with a fresh key limited to 10 a minute: how many were refused. */
  const refusedAcrossServers = async () => {
    const { apiKey } = await one.createAccount({ rateLimitPerMinute: 10 })
    let refused = 0
    for (const server of [one, two, one, two, one, two, one, two, one, two, one, two]) {
      const res = await api(server, apiKey).get('/qr-codes?limit=1')
      if (res.status === 429) refused++
      else expect(res.status, res.text).toBe(200)
    }
    return refused
  }

  it('shares limits across servers while Redis is up', async () => {
    expect(await refusedAcrossServers()).toBe(2)
  })

  it('keeps every request under 1.5 s when Redis is killed under load, and limits per process meanwhile', async () => {
    const clients = [api(one, one.apiKey), api(two, two.apiKey)]
    const load = runLoad(
      8,
      async (i) => {
        const res = await (clients[i % 2] as (typeof clients)[0]).get('/qr-codes?limit=1')
        return { status: res.status, what: res.text.slice(0, 100) }
      },
      (status) => status === 200,
    )
    await sleep(500)
    await redis.kill()
    const killedAt = Date.now()
    await sleep(3000)
    // Down: each server counts on its own, so 6 + 6 of a limit of 10 all pass…
    expect(await refusedAcrossServers()).toBe(0)
    // …and each still holds its own limit.
    const { apiKey } = await one.createAccount({ rateLimitPerMinute: 3 })
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) statuses.push((await api(one, apiKey).get('/qr-codes?limit=1')).status)
    expect(statuses).toEqual([200, 200, 200, 429])
    const result = await load.stop()
    figures.killed = { ...result, downForMs: Date.now() - killedAt }
    expect(result.unexpected).toEqual([])
    expect(result.maxLatencyMs).toBeLessThan(1500)
  })

  it('shares limits again once Redis is back on the same port', async () => {
    await redis.restart()
    const started = Date.now()
    const shared = await waitFor(async () => (await refusedAcrossServers()) === 2, 15_000, 250)
    figures.recoveredAfterMs = Date.now() - started
    expect(shared).toBe(true)
  })
})
