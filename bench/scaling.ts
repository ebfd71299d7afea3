/**
 * DESIGN §18 / issue #20.4: the figures docs/scaling.md is written from. Redirects per second
 * and server CPU per redirect for one process and for WORKERS=2, on a SQLite file and on
 * PostgreSQL with a private Redis, against the bare baseline in the same run; and what each
 * store carries per scan: PostgreSQL transactions and rows written (pg_stat_database of the
 * run's own database), Redis commands (a private redis-server's own counter).
 *
 *   npm run build && npm run bench:scaling -w @qrctl/bench    # BENCH_SECONDS (10)
 *
 * This machine has 2 cores: the load generator takes core 0, one worker core 1; WORKERS=2
 * gets both cores and shares core 0 with the load generator, so its gain here is a floor.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import {
  createDynamicCode,
  freePort,
  requireBuild,
  round,
  spawnPinned,
  startQrctl,
} from './redirect-support.js'
import { describeRun, type Measured, measureRedirects } from './scanners.js'

const RUN = { connections: 50, warmupSeconds: 3, seconds: Number(process.env.BENCH_SECONDS ?? 10) }
const POSTGRES = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

interface Store {
  name: 'sqlite' | 'postgres'
  env: Record<string, string>
  /** Counters of the store(s) behind the server, read before and after a run. */
  counters(): Promise<Record<string, number>>
  scans(): Promise<number>
  /** Bytes on disk per stored scan: the scans table and everything derived from it, indexes included. */
  bytesPerScan(): Promise<number>
  close(): Promise<void>
}

/** The tables a scan writes to (DESIGN §7, §16). */
const SCAN_TABLES = [
  'scans',
  'scan_daily',
  'scan_totals',
  'scan_visitor_days',
  'scan_quarters',
  'scan_visitor_dates',
  'scan_running',
]

async function createCode(port: number, apiKey: string | undefined) {
  return (await createDynamicCode(port, apiKey)).shortCode
}

async function sqliteStore(dir: string): Promise<Store> {
  const file = join(dir, 'qrctl.db')
  const { default: Database } = await import('better-sqlite3')
  const scans = async () => {
    const db = new Database(file, { readonly: true })
    try {
      return Number((db.prepare('select count(*) as n from scans').get() as { n: number }).n)
    } finally {
      db.close()
    }
  }
  const bytesPerScan = async () => {
    const db = new Database(file, { readonly: true })
    try {
      // dbstat: the pages of each table and of its indexes.
      const names = SCAN_TABLES.map((t) => `'${t}'`).join(',')
      const row = db
        .prepare(
          `select sum(pgsize) as bytes from dbstat where name in (${names}) or name in (select name from sqlite_master where type = 'index' and tbl_name in (${names}))`,
        )
        .get() as { bytes: number }
      return Number(row.bytes) / Math.max(1, await scans())
    } finally {
      db.close()
    }
  }
  return {
    name: 'sqlite',
    env: { DATABASE_URL: `file:${file}` },
    counters: async () => ({}),
    scans,
    bytesPerScan,
    close: async () => {},
  }
}

/** A private redis-server on a free loopback port (never the shared one). */
async function privateRedis(): Promise<{ url: string; process: ChildProcess; port: number }> {
  const port = await freePort()
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  )
  for (let i = 0; i < 100; i++) {
    if ((await redisInfo(port).catch(() => undefined)) !== undefined) break
    await new Promise((done) => setTimeout(done, 50))
  }
  return { url: `redis://127.0.0.1:${port}`, process: child, port }
}

/** `total_commands_processed` of a redis-server, asked over a raw socket. */
async function redisInfo(port: number): Promise<number> {
  const { connect } = await import('node:net')
  return new Promise((done, fail) => {
    const socket = connect(port, '127.0.0.1')
    let text = ''
    socket.on('error', fail)
    socket.on('data', (chunk) => {
      text += chunk.toString()
      const match = text.match(/total_commands_processed:(\d+)/)
      if (match) {
        socket.end()
        done(Number(match[1]))
      }
    })
    socket.write('INFO stats\r\n')
  })
}

async function postgresStore(): Promise<Store> {
  const name = `qrctl_bench_scaling_${process.pid}`
  const admin = new pg.Client({ connectionString: POSTGRES })
  await admin.connect()
  await admin.query(`DROP DATABASE IF EXISTS ${name}`)
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(POSTGRES)
  url.pathname = `/${name}`
  const redis = await privateRedis()
  const db = new pg.Client({ connectionString: url.toString() })
  await db.connect()
  return {
    name: 'postgres',
    env: { DATABASE_URL: url.toString(), REDIS_URL: redis.url },
    counters: async () => {
      // Statistics reach pg_stat_database when a backend has been idle a second.
      await new Promise((done) => setTimeout(done, 1500))
      await db.query('select pg_stat_clear_snapshot()')
      const row = (
        await db.query(
          'select xact_commit, tup_inserted, tup_updated, tup_deleted from pg_stat_database where datname = $1',
          [name],
        )
      ).rows[0] as Record<string, string>
      const commands = (await redisInfo(redis.port)) - 1
      return {
        commits: Number(row.xact_commit),
        rowsInserted: Number(row.tup_inserted),
        rowsUpdated: Number(row.tup_updated),
        rowsDeleted: Number(row.tup_deleted),
        redisCommands: commands,
      }
    },
    scans: async () => Number((await db.query('select count(*) as n from scans')).rows[0].n),
    bytesPerScan: async () => {
      const sizes = await db.query(
        'select sum(pg_total_relation_size(t::regclass)) as bytes from unnest($1::text[]) as t',
        [SCAN_TABLES],
      )
      const scans = Number((await db.query('select count(*) as n from scans')).rows[0].n)
      return Number(sizes.rows[0].bytes) / Math.max(1, scans)
    },
    close: async () => {
      await db.end()
      redis.process.kill('SIGTERM')
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    },
  }
}

interface Row {
  store: string
  workers: number | 'baseline'
  cores: string
  run: Measured
  scansStored?: number
  perScan?: Record<string, number>
}

async function measureQrctl(store: Store, workers: number, cores: string): Promise<Row> {
  const port = await freePort()
  const env = { ...store.env, WORKERS: String(workers) }
  const server = await startQrctl('', port, env, cores)
  const shortCode = await createCode(port, keys.get(store.name))
  const before = await store.counters()
  const scansBefore = await store.scans()
  const run = await measureRedirects(`http://127.0.0.1:${port}/r/${shortCode}`, server, RUN)
  const exitCode = await server.stop()
  // A scan answered but not stored would be a loss: say what the server said about it.
  const lost = server
    .output()
    .split('\n')
    .filter((line) => /could not be written|dropped|shutdown|timed out/i.test(line))
  if (exitCode !== 0 || lost.length > 0)
    process.stdout.write(
      `  server exit code ${exitCode}; ${lost.slice(0, 5).join('\n  ') || 'no shutdown log line'}\n`,
    )
  const after = await store.counters()
  const scansStored = (await store.scans()) - scansBefore
  const perScan = Object.fromEntries(
    Object.keys(after).map((k) => [
      k,
      round(((after[k] ?? 0) - (before[k] ?? 0)) / Math.max(1, scansStored), 3),
    ]),
  )
  const row = { store: store.name, workers, cores, run, scansStored, perScan }
  process.stdout.write(
    `${store.name} WORKERS=${workers} (cores ${cores}): ${describeRun('qrctl', run)}; ${scansStored} scans stored of ${run.answered} answered ${JSON.stringify(perScan)}\n`,
  )
  return row
}

/** The first start's API key per store: a later start prints none. */
const keys = new Map<string, string>()

async function main() {
  requireBuild()
  const dir = mkdtempSync(join(tmpdir(), 'qrctl-bench-scaling-'))
  const rows: Row[] = []
  const stores: Store[] = []
  const storage: Record<string, number> = {}
  try {
    stores.push(await sqliteStore(dir), await postgresStore())
    for (const store of stores) {
      // The first start creates the account and prints its key.
      const port = await freePort()
      const first = await startQrctl('', port, store.env)
      if (first.apiKey) keys.set(store.name, first.apiKey)
      await first.stop()
    }
    // The baseline on a copy of the SQLite file after one code exists.
    const sqlite = stores[0] as Store
    const basePort0 = await freePort()
    const seeded = await startQrctl('', basePort0, sqlite.env)
    const baseCode = await createCode(basePort0, keys.get('sqlite'))
    await seeded.stop()
    copyFileSync(join(dir, 'qrctl.db'), join(dir, 'baseline.db'))
    const basePort = await freePort()
    const base = await spawnPinned(
      [
        process.execPath,
        '--import',
        'tsx',
        'bench/redirect-baseline.ts',
        join(dir, 'baseline.db'),
        String(basePort),
      ],
      {},
      /listening/,
    )
    const baseline = await measureRedirects(`http://127.0.0.1:${basePort}/r/${baseCode}`, base, RUN)
    await base.stop()
    process.stdout.write(`bare node:http + better-sqlite3 (core 1): ${describeRun('baseline', baseline)}\n`)
    rows.push({ store: 'sqlite', workers: 'baseline', cores: '1', run: baseline })

    for (const store of stores) {
      rows.push(await measureQrctl(store, 1, '1'))
      rows.push(await measureQrctl(store, 2, '0,1'))
      const bytes = Math.round(await store.bytesPerScan())
      process.stdout.write(
        `${store.name}: ${bytes} bytes on disk per stored scan (scans and what is derived from them)\n`,
      )
      storage[store.name] = bytes
    }
    const summary = rows.map((r) => ({
      store: r.store,
      workers: r.workers,
      cores: r.cores,
      rps: Math.round(r.run.requestsPerSecond),
      ratioToBaseline: round(r.run.requestsPerSecond / baseline.requestsPerSecond),
      p99Ms: round(r.run.p99),
      cpuUsPerRequest: round(r.run.cpuPerRequestUs, 1),
      scansStored: r.scansStored,
      answered: r.run.answered,
      perScan: r.perScan,
    }))
    process.stdout.write(`${JSON.stringify({ runs: summary, bytesPerScan: storage }, null, 2)}\n`)
  } finally {
    for (const store of stores) await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
