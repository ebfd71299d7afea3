import type { QrCode } from '@qrctl/contract'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ApiResponse, api, createCode, dynamicCode } from '../api/helpers.js'
import { BROWSER_AGENT, runLoad, sleep, startTcpProxy, type TcpProxy, waitFor } from '../support/faults.js'
import { createPostgresDatabase, startServer, type TestServer } from '../support/server.js'

/**
 * Issue #12, item 1. The server reaches its own PostgreSQL database through a TCP proxy the
 * test runs on loopback, so the database can be made unreachable (proxy stopped) without
 * touching the shared server, and its connections are cut with pg_terminate_backend on that
 * database only. The process must stay up (this file runs the server in the test's own
 * process: an unhandled 'error' event would end the run), every answer must be one of the
 * contract's, and every redirect answered must become a stored scan.
 */
const run = process.env.TEST_DATABASE_URL ? describe : describe.skip

run('PostgreSQL faults', () => {
  let database: { url: string; drop(): Promise<void> }
  let proxy: TcpProxy
  let server: TestServer
  let admin: pg.Client
  let codes: QrCode[]
  const figures: Record<string, unknown> = {}

  beforeAll(async () => {
    database = await createPostgresDatabase()
    const direct = new URL(database.url)
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) })
    const proxied = new URL(database.url)
    proxied.hostname = '127.0.0.1'
    proxied.port = String(proxy.port)
    server = await startServer({
      dialect: 'postgres',
      env: { DATABASE_URL: proxied.toString(), RATE_LIMIT_PER_MINUTE: '1000000' },
    })
    admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
    await admin.connect()
    const client = api(server, server.apiKey)
    codes = []
    for (let i = 0; i < 5; i++) codes.push(await createCode(client, dynamicCode({ name: `pg-fault ${i}` })))
  })

  afterAll(async () => {
    console.info('PostgreSQL fault figures', JSON.stringify(figures))
    await admin?.end()
    await server?.close()
    await proxy?.close()
    await database?.drop()
  })

  /** Cuts every connection the server has open to its own database (only that database). */
  const terminateServerConnections = async () => {
    const name = new URL(database.url).pathname.slice(1)
    const result = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    )
    return result.rowCount ?? 0
  }

  const storedScans = async () => {
    const row = await server.ctx.db
      .selectFrom('scans')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }

  /** Whether every buffered scan was written within 15 s, flushing meanwhile. */
  const drained = () =>
    waitFor(async () => {
      await server.running.scans.flush()
      return server.running.scans.pending() === 0
    }, 15_000)

  const totalScansOf = async (id: string) => {
    const row = await server.ctx.db
      .selectFrom('qr_codes')
      .select('total_scans')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    return Number(row.total_scans)
  }

  /** Concurrent redirects and API reads/writes; 302/200/201 normally, 503 with Retry-After while down. */
  const startLoad = () => {
    const client = api(server, server.apiKey)
    let redirected = 0
    const load = runLoad(
      8,
      async (i) => {
        if (i % 4 === 3) {
          const res =
            i % 8 === 3
              ? await client.post('/qr-codes', dynamicCode({ name: `pg-fault load ${i}` }))
              : await client.get('/qr-codes?limit=5')
          const retryAfter = res.headers.get('retry-after')
          const ok =
            res.status < 300 ||
            (res.status === 503 && res.body?.error === 'service_unavailable' && retryAfter !== null)
          return { status: res.status, what: ok ? 'api' : `api ${res.text.slice(0, 200)}` }
        }
        const code = codes[i % codes.length] as QrCode
        const res = await fetch(`${server.baseUrl}/r/${code.shortCode}`, {
          redirect: 'manual',
          headers: { 'user-agent': BROWSER_AGENT },
        })
        await res.arrayBuffer()
        if (res.status === 302) redirected++
        const ok = res.status === 302 || (res.status === 503 && res.headers.get('retry-after') !== null)
        return { status: res.status, what: ok ? 'redirect' : 'redirect without Retry-After' }
      },
      (status, what) => [200, 201, 302].includes(status) || (status === 503 && !what.includes(' ')),
    )
    return { stop: async () => ({ ...(await load.stop()), redirected: () => redirected }) }
  }

  it('survives repeated pg_terminate_backend of its connections under load and stores every scan', async () => {
    const before = await storedScans()
    const load = startLoad()
    let terminated = 0
    for (let round = 0; round < 15; round++) {
      await sleep(200)
      terminated += await terminateServerConnections()
    }
    await sleep(300)
    const result = await load.stop()
    await server.running.scans.flush()
    expect(await waitFor(async () => server.running.scans.pending() === 0, 10_000)).toBe(true)
    const scans = (await storedScans()) - before
    figures.terminate = { ...result, terminated, redirected: result.redirected(), scansStored: scans }
    expect(result.unexpected).toEqual([])
    expect(terminated).toBeGreaterThan(0)
    expect(result.redirected()).toBeGreaterThan(0)
    expect(scans).toBe(result.redirected())
  })

  it('answers 503 with Retry-After while the database is unreachable, then recovers and writes the buffered scans', async () => {
    const client = api(server, server.apiKey)
    const before = await storedScans()
    const load = startLoad()
    await sleep(500)
    await proxy.stop()
    const down = Date.now()
    // While down: a write (which can only go to the database) answers 503 with Retry-After.
    let outage: ApiResponse | undefined
    await waitFor(async () => {
      outage = await client.post('/qr-codes', dynamicCode({ name: 'pg-fault while down' }))
      return outage.status === 503
    }, 10_000)
    expect(outage?.status, outage?.text).toBe(503)
    expect(outage?.body.error).toBe('service_unavailable')
    expect(outage?.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(outage?.headers.get('x-request-id')).toBeTruthy()
    // An uncached short link cannot be looked up: a 503 page.
    const unknown = await fetch(`${server.baseUrl}/r/zzzzzzz`, { redirect: 'manual' })
    expect(unknown.status).toBe(503)
    expect(unknown.headers.get('content-type')).toContain('text/html')
    expect(unknown.headers.get('retry-after')).toMatch(/^\d+$/)
    await sleep(Math.max(0, 4000 - (Date.now() - down)))
    await proxy.start()
    const recovered = await waitFor(
      async () => (await client.get('/qr-codes?limit=1')).status === 200,
      15_000,
    )
    expect(recovered).toBe(true)
    await sleep(500)
    const result = await load.stop()
    expect(await drained()).toBe(true)
    const scans = (await storedScans()) - before
    figures.unreachable = {
      ...result,
      outageMs: 4000,
      redirected: result.redirected(),
      scansStored: scans,
    }
    expect(result.unexpected).toEqual([])
    expect(result.statuses['503'] ?? 0).toBeGreaterThan(0)
    expect(scans).toBe(result.redirected())
  })

  it('stores a batch once when the answer to its COMMIT is lost and it is written again', async () => {
    const before = await storedScans()
    const code = codes[0] as QrCode
    const totalBefore = await totalScansOf(code.id)
    const redirects = 40
    for (let i = 0; i < redirects; i++) {
      const res = await fetch(`${server.baseUrl}/r/${code.shortCode}`, {
        redirect: 'manual',
        headers: { 'user-agent': BROWSER_AGENT },
      })
      await res.arrayBuffer()
      expect(res.status).toBe(302)
    }
    // The batch's transaction commits, its answer never arrives: the write fails, and the batch
    // goes back to the buffer and is written again.
    const cut = proxy.cutAfterNextCommit()
    await server.running.scans.flush()
    await cut
    expect(await drained()).toBe(true)
    expect((await storedScans()) - before).toBe(redirects)
    expect((await totalScansOf(code.id)) - totalBefore).toBe(redirects)
  })
})
