import { get } from 'node:http'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, createCode, dynamicCode, eventually, expectError, UNLIMITED } from '../api/helpers.js'
import { captureLogger } from '../support/capture-logger.js'
import { startServer, type TestServer } from '../support/server.js'

const ROWS = 60_000
const DAY = '2026-11-10'

/**
 * DESIGN §16: the export streams, and on PostgreSQL it reads through one cursor on one pooled
 * connection for the length of the download. A client that leaves must close that cursor and
 * give the connection back, or every abandoned download keeps a connection taken for good.
 */
const run = process.env.TEST_DATABASE_URL ? describe : describe.skip

run('the export’s cursor on PostgreSQL', () => {
  let server: TestServer
  const capture = captureLogger()
  let admin: pg.Client
  let exportUrl: string
  /** A code without scans: its export is a header line, over at once. */
  let quiet: string

  beforeAll(async () => {
    // A pool of 6: at most 2 exports at once (a third of it).
    server = await startServer({
      dialect: 'postgres',
      env: { ...UNLIMITED, DATABASE_POOL_SIZE: '6' },
      logger: capture.logger,
    })
    admin = new pg.Client({ connectionString: server.databaseUrl })
    await admin.connect()
    const code = await createCode(api(server, server.apiKey), dynamicCode({ name: 'Busy' }))
    quiet = (await createCode(api(server, server.apiKey), dynamicCode({ name: 'Quiet' }))).id
    // Written straight into the table: far more CSV (about 9 MB) than the socket buffers hold,
    // so a client that stops reading leaves the server mid-export.
    const start = Date.parse(`${DAY}T00:00:00.000Z`)
    for (let i = 0; i < ROWS; i += 2000)
      await server.ctx.db
        .insertInto('scans')
        .values(
          Array.from({ length: 2000 }, (_, j) => ({
            qr_code_id: code.id,
            scanned_at: new Date(start + (i + j) * 1000).toISOString(),
            visitor_id: `visitor-${i + j}`,
            device: 'mobile',
            browser: 'Chrome',
            os: 'Android',
            country: 'NP',
            city: 'Kathmandu',
            referrer: 'direct',
          })),
        )
        .execute()
    exportUrl = `${server.baseUrl}/api/v1/analytics/export?from=${DAY}&to=${DAY}&timezone=Asia/Kathmandu`
  })

  afterAll(async () => {
    await admin?.end()
    await server?.close()
  })

  /** The server's connections running the export's query right now (not idle in the pool). */
  const openCursors = async () => {
    const { rows } = await admin.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
       where datname = current_database() and pid <> pg_backend_pid()
         and state <> 'idle' and query like 'select "scanned_at"%'`,
    )
    return rows[0]?.n ?? 0
  }

  /**
   * The export's first bytes, then no more reading: node:http stops reading the socket when
   * paused, so the server soon waits on TCP back-pressure (fetch would read on into memory).
   */
  const startDownload = () =>
    new Promise<{ status: number | undefined; leave(): void }>((resolve, reject) => {
      const req = get(exportUrl, { headers: { authorization: `Bearer ${server.apiKey}` } }, (res) => {
        res.once('data', () => {
          res.pause()
          resolve({ status: res.statusCode, leave: () => req.destroy() })
        })
      })
      req.on('error', reject)
    })

  it('closes the cursor and frees its connection when the client leaves mid-download', async () => {
    for (let round = 0; round < 3; round++) {
      const download = await startDownload()
      expect(download.status).toBe(200)
      // Mid-export: the client stopped reading, so the cursor waits, open, on its connection.
      expect(await eventually(async () => (await openCursors()) === 1, 10_000)).toBe(true)
      download.leave()
      expect(await eventually(async () => (await openCursors()) === 0, 10_000)).toBe(true)
    }
    // The connections are back in the pool: a whole export still runs to its end.
    const whole = await fetch(exportUrl, { headers: { authorization: `Bearer ${server.apiKey}` } })
    expect(whole.status).toBe(200)
    expect((await whole.text()).split('\r\n')).toHaveLength(ROWS + 2)
  })

  it('runs a third of the pool’s exports at once and answers the next 503 with Retry-After', async () => {
    const client = api(server, server.apiKey)
    const exportOf = (query: string) => client.get(`/analytics/export?from=${DAY}&to=${DAY}${query}`)
    const first = await startDownload()
    const second = await startDownload()
    expect([first.status, second.status]).toEqual([200, 200])
    const refused = await exportOf(`&qrCodeIds=${quiet}`)
    expectError(refused, 503, 'service_unavailable')
    expect(refused.headers.get('retry-after')).toBe('5')
    expect(refused.body.details.retryAfter).toBe(5)
    // Logged as what it is, not as a database fault.
    const requestId = refused.headers.get('x-request-id')
    const lines = capture.entries.filter((e) => e.fields.requestId === requestId)
    expect(lines.some((e) => e.level === 'info' && e.msg === 'service unavailable')).toBe(true)
    expect(lines.filter((e) => e.level === 'warn' || e.level === 'error')).toEqual([])
    // Bad input still hears what is wrong with it; other reads still find a connection.
    expectError(await client.get('/analytics/export?from=2026-01-02&to=2026-01-01'), 400, 'validation_error')
    expect((await client.get('/analytics?period=7d')).status).toBe(200)
    first.leave()
    // The slot comes back once the cursor is closed.
    expect(await eventually(async () => (await exportOf(`&qrCodeIds=${quiet}`)).status === 200, 10_000)).toBe(
      true,
    )
    second.leave()
    expect(await eventually(async () => (await openCursors()) === 0, 10_000)).toBe(true)
    // Exports that ran to their end give their slots back too.
    for (let i = 0; i < 4; i++) expect((await exportOf(`&qrCodeIds=${quiet}`)).status).toBe(200)
    const [a, b] = [await startDownload(), await startDownload()]
    expect([a.status, b.status]).toEqual([200, 200])
    a.leave()
    b.leave()
  })
})
