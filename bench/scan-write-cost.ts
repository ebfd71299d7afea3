/**
 * The scan write path's cost in-process (`writeScans`, the scan writer's batch), for builds
 * compared in one process: each build named in BENCH_SERVER_DISTS (comma-separated
 * `server/dist` directories; a copy of an older one with a `node_modules` link beside its
 * `server/` works) gets its own database, a year of BENCH_HISTORY scans loaded first (batches
 * of 2,000 in time order), then BENCH_BATCHES live batches of 500 scans a minute apart (half
 * new visitors, half returning from a pool of 20,000 with a squared skew), alternated between
 * the builds. SQLite: the process's CPU time per scan (SQLite runs in it); PostgreSQL
 * (BENCH_DATABASE_URL, a server where the bench may create databases): wall time per scan.
 *
 *   BENCH_SERVER_DISTS=/tmp/before/server/dist,$PWD/server/dist npx tsx bench/scan-write-cost.ts
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { round } from './redirect-support.js'
import { random } from './scan-seed.js'

const HISTORY = Number(process.env.BENCH_HISTORY ?? 100_000)
const BATCHES = Number(process.env.BENCH_BATCHES ?? 60)
const pgUrl = process.env.BENCH_DATABASE_URL
const dists = (process.env.BENCH_SERVER_DISTS ?? join(import.meta.dirname, '../server/dist')).split(',')

interface Build {
  dist: string
  // biome-ignore lint/suspicious/noExplicitAny: modules of any build
  writeScans: (ctx: any, events: any[], seen?: any) => Promise<number>
  // biome-ignore lint/suspicious/noExplicitAny: modules of any build
  seen: any
  // biome-ignore lint/suspicious/noExplicitAny: a Kysely of any build
  ctx: { db: any; dialect: 'sqlite' | 'postgres' }
  close(): Promise<void>
  perScan: number[]
}

const DEVICES = ['mobile', 'desktop', 'tablet'] as const

function event(code: string, at: number, visitor: string, rand: () => number) {
  return {
    qrCodeId: code,
    scannedAt: new Date(at).toISOString(),
    visitorId: visitor,
    device: DEVICES[Math.floor(rand() * 3)],
    browser: ['Chrome', 'Mobile Safari', null][Math.floor(rand() * 3)] ?? null,
    os: ['iOS', 'Android', null][Math.floor(rand() * 3)] ?? null,
    country: `C${Math.floor(rand() ** 2 * 40)}`,
    city: `City ${Math.floor(rand() ** 2 * 150)}`,
    referrer: ['direct', 'news.example', null][Math.floor(rand() * 3)] ?? null,
  }
}

async function open(dist: string, dir: string): Promise<Build> {
  const server = await import(join(dist, 'index.js'))
  const service = await import(join(dist, 'modules/scans/scans.service.js'))
  const seenModule = await import(join(dist, 'modules/scans/seen-visitors.js'))
  let dropDb = async () => {}
  let target: { dialect: 'sqlite'; filename: string } | { dialect: 'postgres'; connectionString: string }
  if (pgUrl) {
    const name = `bench_write_${randomUUID().slice(0, 8)}`
    const admin = new pg.Client({ connectionString: pgUrl })
    await admin.connect()
    await admin.query(`create database ${name}`)
    await admin.end()
    const url = new URL(pgUrl)
    url.pathname = `/${name}`
    target = { dialect: 'postgres', connectionString: url.toString() }
    dropDb = async () => {
      const again = new pg.Client({ connectionString: pgUrl })
      await again.connect()
      await again.query(`drop database ${name}`)
      await again.end()
    }
  } else target = { dialect: 'sqlite', filename: join(dir, `${randomUUID()}.db`) }
  const handle = server.openDatabase(target)
  await server.migrateToLatest(handle.db)
  const at = new Date(Date.now() - 400 * 86_400_000).toISOString()
  await handle.db
    .insertInto('accounts')
    .values({ id: 'acc', name: 'a', plan: 'pro', subscription_status: 'active', created_at: at })
    .execute()
  await handle.db
    .insertInto('qr_codes')
    .values({
      id: 'code',
      account_id: 'acc',
      name: 'code',
      type: 'dynamic',
      content_type: 'url',
      content: 'https://example.com/',
      target_url: 'https://example.com/',
      short_code: 'write',
      is_active: 1,
      created_at: at,
      updated_at: at,
    })
    .execute()
  return {
    dist,
    writeScans: service.writeScans,
    seen: new seenModule.SeenVisitors(),
    ctx: { db: handle.db, dialect: target.dialect },
    close: async () => {
      await handle.close()
      await dropDb()
    },
    perScan: [],
  }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'qrctl-write-cost-'))
  const builds: Build[] = []
  try {
    for (const dist of dists) builds.push(await open(dist, dir))
    const now = Date.now() - BATCHES * 60_000
    const start = now - 365 * 86_400_000
    // The year, in time order, from 20,000 visitors with a squared skew (the same for every build).
    for (const build of builds) {
      const rand = random(7)
      const started = performance.now()
      for (let i = 0; i < HISTORY; i += 2_000) {
        const batch = Array.from({ length: Math.min(2_000, HISTORY - i) }, (_, j) =>
          event(
            'code',
            start + Math.floor(((i + j) / HISTORY) * 365 * 86_400_000),
            `v${Math.floor(rand() ** 2 * 20_000)}`,
            rand,
          ),
        )
        await build.writeScans(build.ctx, batch, build.seen)
      }
      process.stdout.write(
        `${build.dist}: the year in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
      )
    }
    const rand = random(11)
    for (let b = 0; b < BATCHES; b++) {
      const at = now + b * 60_000
      const batch = Array.from({ length: 500 }, (_, j) =>
        event(
          'code',
          at + j * 100,
          rand() < 0.5 ? `new-${b}-${j}` : `v${Math.floor(rand() ** 2 * 20_000)}`,
          rand,
        ),
      )
      const order = b % 2 === 0 ? builds : [...builds].reverse()
      for (const build of order) {
        const cpu = process.cpuUsage()
        const wall = performance.now()
        await build.writeScans(build.ctx, batch, build.seen)
        const used = process.cpuUsage(cpu)
        const us = pgUrl ? (performance.now() - wall) * 1000 : used.user + used.system
        build.perScan.push(us / batch.length)
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
    for (const build of builds)
      process.stdout.write(
        `${build.dist}: ${pgUrl ? 'wall' : 'CPU'} per scan, median ${round(median(build.perScan))} µs\n`,
      )
    if (builds.length === 2) {
      const [a, b] = builds as [Build, Build]
      const diffs = a.perScan.map((x, i) => (b.perScan[i] as number) - x)
      process.stdout.write(`paired median difference (second − first): ${round(median(diffs))} µs a scan\n`)
    }
  } finally {
    for (const build of builds) await build.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
