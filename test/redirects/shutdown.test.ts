import { mkdtempSync, rmSync } from 'node:fs'
import { Agent, get } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { accounts, loadConfig, type RunningServer, startServer as startRaw } from '@qrctl/server'
import { afterEach, describe, expect, it } from 'vitest'
import { api, eventually, UNLIMITED } from '../api/helpers.js'
import { PROCESS_TESTS, startServerProcess } from '../support/process.js'
import { createPostgresDatabase, type Dialect, dialects, freePort, startServer } from '../support/server.js'
import { AGENTS, analytics, createDynamic, scanOk, totalScans } from './scan-helpers.js'

/** A database that outlives one server: a temp SQLite file or a fresh PostgreSQL database. */
async function durableDatabase(dialect: Dialect): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === 'postgres') return createPostgresDatabase()
  const dir = mkdtempSync(join(tmpdir(), 'qrctl-scans-'))
  return {
    url: `file:${join(dir, 'qrctl.db')}`,
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** Scans from many addresses, a few at a time; resolves with how many were answered 302. */
async function scanMany(baseUrl: string, shortCode: string, count: number, parallel = 10): Promise<number> {
  let next = 0
  const worker = async () => {
    while (next < count) {
      const i = next++
      await scanOk({ baseUrl }, shortCode, {
        ip: `8.8.${i % 200}.${Math.floor(i / 200)}`,
        ua: AGENTS.android.ua,
      })
    }
  }
  await Promise.all(Array.from({ length: parallel }, worker))
  return count
}

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe.each(dialects())('the scan buffer on %s', (dialect) => {
  /** A server whose timer would not flush for a minute, so the buffer stays full until close(). */
  async function startWithIdleTimer(
    url: string,
    maxBatch = 5000,
  ): Promise<{ running: RunningServer; apiKey: string }> {
    const port = await freePort()
    const config = loadConfig({
      DATABASE_URL: url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      TRUST_PROXY: 'on',
      ...UNLIMITED,
    })
    const running = await startRaw(config, { scanBuffer: { intervalMs: 60_000, maxBatch } })
    const { key } = await accounts.createAccountWithKey(running.ctx, { name: 'buffer', plan: 'pro' })
    return { running, apiKey: key.secret }
  }

  it('writes every buffered scan when the server closes (the path SIGTERM takes)', async () => {
    const database = await durableDatabase(dialect)
    cleanups.push(database.drop)
    const { running, apiKey } = await startWithIdleTimer(database.url)
    const code = await createDynamic(api({ baseUrl: running.url }, apiKey))
    await scanMany(running.url, code.shortCode as string, 300)
    expect(running.scans.pending()).toBe(300)
    await running.close()

    const reopened = await startServer({ dialect, env: { DATABASE_URL: database.url, ...UNLIMITED } })
    cleanups.push(reopened.close)
    const client = api(reopened, apiKey)
    expect(await totalScans(client, code.id)).toBe(300)
    const stats = await analytics(reopened, client, code.id, 'all')
    expect(stats).toMatchObject({ totalEvents: 300, uniqueVisitors: 300 })
  })

  it('writes a batch as soon as the buffer is full, without waiting for the timer', async () => {
    const database = await durableDatabase(dialect)
    cleanups.push(database.drop)
    const { running, apiKey } = await startWithIdleTimer(database.url, 1000)
    cleanups.push(running.close)
    const client = api({ baseUrl: running.url }, apiKey)
    const code = await createDynamic(client)
    await scanMany(running.url, code.shortCode as string, 1000, 25)
    expect(await eventually(async () => (await totalScans(client, code.id)) === 1000, 5000)).toBe(true)
    expect(running.scans.pending()).toBe(0)
  })

  it('writes scans within about a second on its own', async () => {
    const server = await startServer({ dialect, env: { ...UNLIMITED, TRUST_PROXY: 'on' } })
    cleanups.push(server.close)
    const client = api(server, server.apiKey)
    const code = await createDynamic(client)
    await scanOk(server, code.shortCode as string)
    expect(await totalScans(client, code.id)).toBe(0)
    expect(await eventually(async () => (await totalScans(client, code.id)) === 1, 2500)).toBe(true)
  })
})

describe.each(dialects())('the real server process on %s', PROCESS_TESTS, (dialect) => {
  /**
   * `qrctl-server start` as its own process on a durable database, and its first key from the
   * banner.
   */
  async function startProcess(databaseUrl: string) {
    const server = await startServerProcess({
      DATABASE_URL: databaseUrl,
      TRUST_PROXY: 'on',
      LOG_LEVEL: 'debug',
      ...UNLIMITED,
    })
    cleanups.push(async () => {
      if (server.child.exitCode === null) server.child.kill('SIGKILL')
    })
    const apiKey = server.stderr().match(/qrk_[0-9A-Za-z]{40}/)?.[0]
    if (!apiKey) throw new Error(`no first key in the banner: ${server.output()}`)
    const exited = server.done.then((o) => o.code)
    return { child: server.child, baseUrl: server.url, apiKey, exited, output: server.output }
  }

  it('writes every buffered scan on SIGTERM, exits 0, and logs no client address', async () => {
    const database = await durableDatabase(dialect)
    cleanups.push(database.drop)
    const { child, baseUrl, apiKey, exited, output } = await startProcess(database.url)
    const code = await createDynamic(api({ baseUrl }, apiKey))
    await scanMany(baseUrl, code.shortCode as string, 200)

    child.kill('SIGTERM')
    // The server's own words go with each failure: a flake here must say what happened.
    expect(await exited, output()).toBe(0)
    expect(output()).not.toMatch(/\b8\.8\.\d+\.\d+\b/)

    const reopened = await startServer({ dialect, env: { DATABASE_URL: database.url, ...UNLIMITED } })
    cleanups.push(reopened.close)
    const client = api(reopened, apiKey)
    expect(await totalScans(client, code.id), output()).toBe(200)
    expect((await analytics(reopened, client, code.id, 'all')).totalEvents).toBe(200)
  })

  it('drains keep-alive redirect load on SIGTERM: no connection reset, every answered scan stored', async () => {
    const database = await durableDatabase(dialect)
    cleanups.push(database.drop)
    const { child, baseUrl, apiKey, exited, output } = await startProcess(database.url)
    const code = await createDynamic(api({ baseUrl }, apiKey))
    const url = `${baseUrl}/r/${code.shortCode}`
    // The server's warnings and errors go with each failure (its debug log has a line a redirect).
    const problems = () =>
      output()
        .split('\n')
        .filter((line) => !line.startsWith('{') || !/"level":(10|20|30),/.test(line))
        .join('\n')

    // One connection that asked once and then sits idle: the server must close it.
    const idle = connect(Number(new URL(baseUrl).port), '127.0.0.1')
    const idleClosed = new Promise<string>((resolveIdle) => {
      let answer = ''
      idle.on('data', (chunk: Buffer) => {
        answer += chunk.toString()
      })
      idle.once('close', () => resolveIdle(answer))
    })
    idle.write(
      `GET /r/${code.shortCode} HTTP/1.1\r\nHost: x\r\nUser-Agent: ${AGENTS.android.ua}\r\nX-Forwarded-For: 9.9.9.9\r\n\r\n`,
    )

    // Keep-alive clients, each asking again as soon as it is answered, until the server is gone.
    const tally = { redirects: 0, closeHeaders: 0, refused: 0, failures: [] as string[] }
    const ask = (agent: Agent, headers: Record<string, string>) =>
      new Promise<{ status: number; connection: string | undefined }>((resolveAsk, rejectAsk) => {
        get(url, { agent, headers }, (res) => {
          res.resume()
          res.once('end', () =>
            resolveAsk({ status: res.statusCode ?? 0, connection: res.headers.connection }),
          )
          res.once('error', rejectAsk)
        }).once('error', rejectAsk)
      })
    let stopped = false
    const worker = async (w: number) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 })
      try {
        for (let i = 0; !stopped; i++) {
          try {
            const res = await ask(agent, {
              'user-agent': AGENTS.android.ua,
              'x-forwarded-for': `10.${w}.${i % 250}.${i % 199}`,
            })
            if (res.status !== 302) tally.failures.push(`status ${res.status}`)
            else tally.redirects++
            if (res.connection === 'close') tally.closeHeaders++
          } catch (error) {
            const code = (error as { code?: string }).code
            if (code === 'ECONNREFUSED') {
              tally.refused++
              return
            }
            tally.failures.push(`${code}: ${(error as Error).message}`)
            return
          }
        }
      } finally {
        agent.destroy()
      }
    }
    const workers = Array.from({ length: 16 }, (_, w) => worker(w))
    await eventually(async () => tally.redirects >= 400, 20_000)
    child.kill('SIGTERM')
    const exitCode = await exited
    stopped = true
    await Promise.all(workers)
    const idleAnswer = await idleClosed

    expect(exitCode, problems()).toBe(0)
    expect(tally.failures, problems()).toEqual([])
    expect(tally.refused, problems()).toBe(16)
    expect(tally.closeHeaders, problems()).toBeGreaterThan(0)
    expect(idleAnswer, problems()).toMatch(/^HTTP\/1\.1 302/)

    const reopened = await startServer({ dialect, env: { DATABASE_URL: database.url, ...UNLIMITED } })
    cleanups.push(reopened.close)
    const stored = await totalScans(api(reopened, apiKey), code.id)
    // Every redirect answered is a scan stored: the load's and the idle connection's one.
    expect(stored, problems()).toBe(tally.redirects + 1)
  }, 90_000)
})
