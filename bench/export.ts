/**
 * DESIGN §16: the CSV export streams. 1,000,000 scans (a year of one code) exported through
 * the built server; the server's RSS is sampled from /proc every 20 ms while the client reads
 * as fast as it can. Targets: RSS grows by less than 50 MB over its level before the export,
 * and at least 100,000 rows a second. SQLite always; PostgreSQL too with BENCH_DATABASE_URL.
 *
 *   npm run build && npm run bench:export -w @qrctl/bench
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  freePort,
  ROOT,
  requireBuild,
  round,
  SERVER_CORE,
  SERVER_MAIN,
  startQrctl,
} from './redirect-support.js'
import { DAY_MS, scanRows, seedScans } from './scan-seed.js'

const require = createRequire(join(ROOT, 'server/package.json'))

const SCANS = Number(process.env.BENCH_SCANS ?? 1_000_000)
const DAYS = 365
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1)
// BENCH_SERVERS=a/main.js,b/main.js: alternate builds on the same data, round by round (a
// before/after in one session). Default: the built server.
const SERVERS = (process.env.BENCH_SERVERS ?? SERVER_MAIN).split(',')
// BENCH_NODE_OPTIONS (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof) is handed to the servers.
const NODE_OPTIONS: Record<string, string> = process.env.BENCH_NODE_OPTIONS
  ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS }
  : {}

const rssMb = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024
}

/** utime + stime of one process, in ms (0 once it is gone or not visible here). */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return 0
  }
}

const loadAverage = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0])

/**
 * CPU of the PostgreSQL backends serving a database (the server's pooled connections), read
 * from /proc: the database runs on this machine. The cursor's backend lives for the whole export.
 */
async function pgBackends(url: string) {
  const pg = require('pg') as typeof import('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const first = new Map<number, number>()
  const last = new Map<number, number>()
  const list = async () => {
    const { rows } = await client.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    )
    for (const { pid } of rows) if (!first.has(pid)) first.set(pid, cpuMs(pid))
  }
  return {
    list,
    sample: () => {
      for (const pid of first.keys()) {
        const ms = cpuMs(pid)
        if (ms > 0) last.set(pid, ms)
      }
    },
    /** CPU used since first seen, in ms. */
    usedMs: () => [...first].reduce((sum, [pid, ms]) => sum + Math.max(0, (last.get(pid) ?? ms) - ms), 0),
    end: () => client.end(),
  }
}

interface Seeded {
  database: string
  dbEnv: Record<string, string>
  key: string
}

async function seed(database: string, dbEnv: Record<string, string>, dialect: string): Promise<Seeded> {
  const setupPort = await freePort()
  const setup = await startQrctl(database, setupPort, dbEnv)
  const key = setup.apiKey as string
  const res = await fetch(`http://127.0.0.1:${setupPort}/api/v1/qr-codes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Export, "bench"',
      type: 'dynamic',
      contentType: 'url',
      content: 'https://example.com/',
    }),
  })
  const code = ((await res.json()) as { data: { id: string } }).data.id
  await setup.stop()
  const started = performance.now()
  await seedScans(dbEnv.DATABASE_URL as string, scanRows(code, SCANS, Date.now(), DAYS, 3), [code])
  process.stdout.write(
    `${dialect}: seeded ${SCANS} scans in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  )
  return { database, dbEnv, key }
}

async function run({ database, dbEnv, key }: Seeded, serverMain: string, label: string) {
  const port = await freePort()
  const server = await startQrctl(database, port, { ...dbEnv, ...NODE_OPTIONS }, SERVER_CORE, serverMain)
  const pid = server.process.pid as number
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
  const url = `http://127.0.0.1:${port}/api/v1/analytics/export?from=${day(Date.now() - DAYS * DAY_MS)}&to=${day(Date.now())}&timezone=Asia/Kathmandu`
  const headers = { authorization: `Bearer ${key}` }
  const pgUrl = dbEnv.DATABASE_URL?.startsWith('postgres') ? dbEnv.DATABASE_URL : undefined
  const backends = pgUrl ? await pgBackends(pgUrl) : undefined
  try {
    // Warm up: one small export, so the baseline includes the code paths' own memory.
    await (await fetch(url.replace(/from=[^&]+/, `from=${day(Date.now())}`), { headers })).text()
    const before = rssMb(pid)
    let peak = before
    const load = loadAverage()
    await backends?.list()
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(pid))
      backends?.sample()
    }, 20)
    const cpuBefore = server.cpuMs()
    const t0 = performance.now()
    const answer = await fetch(url, { headers })
    await backends?.list()
    let rows = -1
    let bytes = 0
    for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength
      for (const byte of chunk) if (byte === 0x0a) rows++
    }
    const seconds = (performance.now() - t0) / 1000
    const cpuMs = server.cpuMs() - cpuBefore
    clearInterval(sampler)
    backends?.sample()
    peak = Math.max(peak, rssMb(pid))
    const result = {
      rows,
      megabytes: round(bytes / 1e6, 1),
      seconds: round(seconds),
      rowsPerSecond: Math.round(rows / seconds),
      serverCpuSeconds: round(cpuMs / 1000),
      serverCpuUsPerRow: round((cpuMs * 1000) / rows, 2),
      ...(backends ? { databaseCpuUsPerRow: round((backends.usedMs() * 1000) / rows, 2) } : {}),
      loadAverage: load,
      rssBeforeMb: round(before, 1),
      rssPeakMb: round(peak, 1),
      rssGrowthMb: round(peak - before, 1),
    }
    const ok = rows === SCANS && result.rssGrowthMb < 50 && result.rowsPerSecond >= 100_000
    const database = backends ? `, database ${result.databaseCpuUsPerRow} µs/row` : ''
    process.stdout.write(
      `${label}: ${rows} rows in ${result.seconds} s (${result.rowsPerSecond}/s, target >= 100000; server CPU ${result.serverCpuSeconds} s = ${result.serverCpuUsPerRow} µs/row${database}; load ${load}); RSS ${result.rssBeforeMb} → ${result.rssPeakMb} MB (+${result.rssGrowthMb}, target < 50): ${ok ? 'PASS' : 'FAIL'}\n`,
    )
    return result
  } finally {
    await backends?.end()
    await server.stop()
  }
}

async function runAll(seeded: Seeded, dialect: string) {
  const results: Record<string, unknown>[] = []
  for (let round = 1; round <= ROUNDS; round++)
    for (const main of SERVERS) {
      const label = SERVERS.length > 1 ? `${dialect} [${main}] round ${round}` : `${dialect} round ${round}`
      results.push({ server: main, round, ...(await run(seeded, main, label)) })
    }
  return results
}

async function main() {
  requireBuild()
  const dir = mkdtempSync(join(tmpdir(), 'qrctl-bench-export-'))
  try {
    const dbFile = join(dir, 'qrctl.db')
    const summary: Record<string, unknown> = {}
    // BENCH_ONLY=postgres skips the SQLite run.
    if (process.env.BENCH_ONLY !== 'postgres')
      summary.sqlite = await runAll(
        await seed(dbFile, { DATABASE_URL: `file:${dbFile}` }, 'sqlite'),
        'sqlite',
      )
    const pgUrl = process.env.BENCH_DATABASE_URL
    if (pgUrl)
      summary.postgres = await runAll(await seed(dbFile, { DATABASE_URL: pgUrl }, 'postgres'), 'postgres')
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
