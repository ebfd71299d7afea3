import { mkdtempSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { BROWSER_AGENT, type PrivateRedis, startPrivateRedis, waitFor } from '../support/faults.js'
import { PROCESS_TESTS, type ServerProcess, startServerProcess } from '../support/process.js'
import { createPostgresDatabase, type Dialect, dialects, freePort } from '../support/server.js'

/**
 * Issue #20, item 3: `WORKERS=2` runs two server processes on one port (node:cluster). Every
 * request below goes on a connection of its own, so the primary hands them to both workers in
 * turn; what one process counts or stores must hold for the other: rate limits (in the primary
 * without Redis, in Redis with it), idempotency keys, scans. On PostgreSQL the workers share a
 * private redis-server the test starts and kills.
 */

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** One request on a new connection (no keep-alive), so successive requests reach both workers. */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers, agent: false })
    req.on('error', reject)
    req.on('response', (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        body += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.end(options.body)
  })
}

/** The JSON log lines of the process so far. */
function logLines(server: ServerProcess): Record<string, unknown>[] {
  return server
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

/** worker number → pid, from the primary's "worker listening" lines (the latest per worker). */
function workerPids(server: ServerProcess): Map<number, number> {
  const pids = new Map<number, number>()
  for (const line of logLines(server))
    if (line.msg === 'worker listening') pids.set(line.worker as number, line.pid as number)
  return pids
}

describe.each(dialects())('WORKERS=2 on %s', PROCESS_TESTS, (dialect: Dialect) => {
  let dir: string
  let server: ServerProcess | undefined
  let redis: PrivateRedis | undefined
  let drop: (() => Promise<void>) | undefined

  afterEach(async () => {
    if (server && server.child.exitCode === null) await server.stop('SIGKILL')
    server = undefined
    await redis?.kill()
    redis = undefined
    await drop?.()
    drop = undefined
    rmSync(dir, { recursive: true, force: true })
  })

  async function start(
    extra: Record<string, string> = {},
  ): Promise<{ server: ServerProcess; key: string; env: Record<string, string> }> {
    dir = mkdtempSync(join(tmpdir(), 'qrctl-workers-'))
    const env: Record<string, string> = {
      WORKERS: '2',
      LOG_LEVEL: 'info',
      DATABASE_URL: `file:${join(dir, 'qrctl.db')}`,
      ...extra,
    }
    if (dialect === 'postgres') {
      const db = await createPostgresDatabase()
      drop = db.drop
      redis = await startPrivateRedis(await freePort())
      env.DATABASE_URL = db.url
      env.REDIS_URL = redis.url
    }
    server = await startServerProcess(env)
    // One first key, printed by the primary (in its banner and its curl example), never by a worker.
    const keys = [...new Set(server.stderr().match(/qrk_[0-9A-Za-z]{40}/g))]
    expect(keys).toHaveLength(1)
    expect(server.stderr().match(/listening on/g)).toHaveLength(1)
    expect(server.stderr()).toContain('2 workers')
    return { server, key: keys[0] as string, env }
  }

  it('answers from both workers, holds one rate limit across them, and labels logs and metrics by worker', async () => {
    const { server: s, key } = await start({ RATE_LIMIT_PER_MINUTE: '20' })
    const auth = { authorization: `Bearer ${key}` }
    const answers = []
    for (let i = 0; i < 30; i++) answers.push(await send(`${s.url}/api/v1/qr-codes`, { headers: auth }))

    // One limit of 20 a minute for the key, not 20 per worker.
    expect(answers.filter((a) => a.status === 200)).toHaveLength(20)
    expect(answers.filter((a) => a.status === 429)).toHaveLength(10)
    const remaining = answers.slice(0, 20).map((a) => Number(a.headers['x-ratelimit-remaining']))
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => 19 - i))

    const served = logLines(s).filter((line) => line.msg === 'request' && line.route === '/api/v1/qr-codes')
    expect(new Set(served.map((line) => line.worker))).toEqual(new Set([1, 2]))

    const metrics = await send(`${s.url}/metrics`)
    expect(metrics.body).toMatch(/qrctl_http_request_duration_seconds_count\{[^}]*worker="1"[^}]*\} \d+/)
    expect(metrics.body).toMatch(/qrctl_http_request_duration_seconds_count\{[^}]*worker="2"[^}]*\} \d+/)
  })

  it('locks a password out after 10 wrong tries across both workers, not 10 per worker (DESIGN §14)', async () => {
    const { server: s, key } = await start()
    const created = await send(`${s.url}/api/v1/qr-codes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'handbook',
        type: 'dynamic',
        contentType: 'url',
        content: 'https://intranet.example.com/',
        password: 'correct horse 42',
      }),
    })
    expect(created.status, created.body).toBe(201)
    const { shortCode } = JSON.parse(created.body).data as { shortCode: string }
    const tryPassword = (password: string) =>
      send(`${s.url}/r/${shortCode}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': BROWSER_AGENT },
        body: new URLSearchParams({ password }).toString(),
      })
    // Six wrong tries one after another (each worker gets some), then a burst of ten at once.
    const sequential = []
    for (let i = 0; i < 6; i++) sequential.push((await tryPassword(`wrong ${i}`)).status)
    expect(sequential).toEqual(Array(6).fill(401))
    const burst = (await Promise.all(Array.from({ length: 10 }, (_, i) => tryPassword(`burst ${i}`)))).map(
      (a) => a.status,
    )
    expect(burst.sort()).toEqual([...Array(4).fill(401), ...Array(6).fill(429)])
    // Locked in both workers, even for the right password.
    const right = await Promise.all(Array.from({ length: 4 }, () => tryPassword('correct horse 42')))
    for (const answer of right) {
      expect(answer.status).toBe(429)
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(14 * 60)
    }
  })

  it('creates one code for one Idempotency-Key sent to both workers at once', async () => {
    const { server: s, key } = await start()
    const headers = {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'idempotency-key': 'workers-create-1',
    }
    const body = JSON.stringify({ name: 'once', type: 'static', contentType: 'text', content: 'hello' })
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => send(`${s.url}/api/v1/qr-codes`, { method: 'POST', headers, body })),
    )
    for (const a of answers) expect([201, 409]).toContain(a.status)
    const created = answers.filter((a) => a.status === 201).map((a) => JSON.parse(a.body).data.id as string)
    expect(new Set(created).size).toBe(1)
    const list = await send(`${s.url}/api/v1/qr-codes`, { headers: { authorization: `Bearer ${key}` } })
    expect(JSON.parse(list.body).total).toBe(1)
  })

  it('replaces a worker killed with SIGKILL, drains both on SIGTERM, and stores one scan per redirect answered', async () => {
    const { server: s, key, env } = await start()
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
    const created = await send(`${s.url}/api/v1/qr-codes`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        name: 'menu',
        type: 'dynamic',
        contentType: 'url',
        content: 'https://menu.example.com/',
      }),
    })
    const code = JSON.parse(created.body).data as { id: string; shortCode: string }

    const before = workerPids(s)
    expect([...before.keys()].sort()).toEqual([1, 2])
    process.kill(before.get(1) as number, 'SIGKILL')
    expect(await waitFor(async () => (workerPids(s).get(1) ?? 0) !== before.get(1), 60_000)).toBe(true)
    expect(
      logLines(s).some((line) => line.msg === 'worker died; starting a new one' && line.worker === 1),
    ).toBe(true)

    let redirects = 0
    for (let round = 0; round < 10; round++) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          send(`${s.url}/r/${code.shortCode}`, { headers: { 'user-agent': BROWSER_AGENT } }),
        ),
      )
      redirects += answers.filter((a) => a.status === 302).length
    }
    expect(redirects).toBe(200)
    const servedBy = logLines(s).filter((line) => line.msg === 'request' && line.route === '/r/:shortCode')
    // Redirects log at debug; the scans' own count is what matters below.
    expect(servedBy).toHaveLength(0)

    const exit = await s.stop('SIGTERM')
    expect(exit.code).toBe(0)
    const stopped = logLines(s).filter((line) => line.msg === 'shutting down')
    expect(new Set(stopped.map((line) => line.worker ?? line.role))).toEqual(new Set([1, 2, 'primary']))

    // The same database, one process: every answered redirect is a stored scan.
    server = await startServerProcess({ ...env, WORKERS: '1' })
    const analytics = await send(`${server.url}/api/v1/qr-codes/${code.id}/analytics?period=7d`, {
      headers: { authorization: `Bearer ${key}` },
    })
    expect(analytics.status).toBe(200)
    expect(JSON.parse(analytics.body).data.totalEvents).toBe(200)
    // Four process starts (two workers, a replacement, then one more server): 39 s at a load
    // average of 15, and over the 60 s default once under CI with other work on the cores.
  }, 150_000)
})
