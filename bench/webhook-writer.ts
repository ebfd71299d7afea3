/**
 * Issue #18.6, the scan writer's share of webhooks, without HTTP: the CPU time one thread spends
 * storing scan batches (`storeScans`, what the scan writer thread runs) on a SQLite file with 10
 * webhooks on `scan.created` and without, and the sender's fan-out of what those batches left in
 * the outbox, per scan. Thread CPU from /proc/self/task/PID/stat: steady on a shared machine
 * where wall time is not. Give another build's server/dist to compare two builds in one run
 * (interleaved, fresh database each time).
 *
 *   npm run build && npm run bench:webhook-writer -w @qrctl/bench [-- ../server/base/dist]
 *   BENCH_BATCHES (default 20) of BENCH_BATCH scans (default 5000), BENCH_REPEATS (default 3)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ROOT, requireBuild, round } from './redirect-support.js'

const BATCHES = Number(process.env.BENCH_BATCHES ?? 20)
const BATCH = Number(process.env.BENCH_BATCH ?? 5000)
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3)
const WEBHOOKS = 10

/** CPU time of this (the main) thread, in ms. */
function threadCpuMs(): number {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) * 10
}

async function build(dist: string) {
  const url = (path: string) => pathToFileURL(join(dist, path)).href
  const [
    { loadConfig },
    { openDatabase },
    { migrations },
    { systemClock },
    { randomIds },
    writer,
    outbox,
    hooks,
  ] = await Promise.all([
    import(url('config.js')),
    import(url('db/database.js')),
    import(url('db/migrations/index.js')),
    import(url('lib/clock.js')),
    import(url('lib/ids.js')),
    import(url('modules/scans/scan-writer.js')),
    import(url('modules/webhooks/webhook-outbox.js')),
    import(url('modules/webhooks/webhooks.repository.js')),
  ])
  const { Migrator } = await import('kysely')
  return { loadConfig, openDatabase, migrations, systemClock, randomIds, writer, outbox, hooks, Migrator }
}
type Build = Awaited<ReturnType<typeof build>>

const NOW = new Date().toISOString()
const AGENT_FIELDS = {
  device: 'mobile',
  browser: 'Mobile Safari',
  os: 'iOS',
  country: null,
  city: null,
  referrer: null,
}

async function run(b: Build, file: string, webhooks: number) {
  const config = b.loadConfig({ DATABASE_URL: `file:${file}` })
  const handle = b.openDatabase(config.database)
  const migrator = new b.Migrator({ db: handle.db, provider: { getMigrations: async () => b.migrations } })
  const migrated = await migrator.migrateToLatest()
  if (migrated.error) throw migrated.error
  const { db } = handle
  await db
    .insertInto('accounts')
    .values({ id: 'acc', name: 'a', plan: 'pro', subscription_status: 'active', created_at: NOW })
    .execute()
  await db
    .insertInto('qr_codes')
    .values({
      id: 'code-a',
      account_id: 'acc',
      name: 'bench',
      type: 'dynamic',
      content_type: 'url',
      content: 'https://example.com/',
      short_code: 'aaaaaaa',
      is_active: 1,
      created_at: NOW,
      updated_at: NOW,
    })
    .execute()
  for (let i = 0; i < webhooks; i++)
    await b.hooks.insertWebhook(db, {
      id: `w-${i}`,
      accountId: 'acc',
      url: `https://hooks.example.com/${i}`,
      description: null,
      events: ['scan.created'],
      qrCodeIds: null,
      isActive: true,
      disabledReason: null,
      secret: 'whsec_x',
      previousSecret: null,
      previousSecretUntil: null,
      consecutiveFailures: 0,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: NOW,
    })
  const ctx = { db, dialect: handle.dialect, config, clock: b.systemClock, ids: b.randomIds }
  const store = b.writer.storeScans(ctx)
  let n = 0
  const before = threadCpuMs()
  for (let i = 0; i < BATCHES; i++) {
    const events = Array.from({ length: BATCH }, () => {
      n++
      return {
        qrCodeId: 'code-a',
        scannedAt: new Date().toISOString(),
        // A keyed hash in the server; 43 base64url characters here too.
        visitorId: `v${String(n).padStart(42, '0')}`,
        ...AGENT_FIELDS,
      }
    })
    await store(events)
  }
  const writeMs = threadCpuMs() - before
  // The fan-out of the first few bundles (each 200 scans → 200 events, 2,000 deliveries).
  const fanBefore = threadCpuMs()
  let fanned = 0
  for (let i = 0; i < 10 && webhooks > 0; i++) if ((await b.outbox.fanOutEvents(ctx, 1)) === 0) break
  if (webhooks > 0)
    fanned = Number(
      (
        (await db
          .selectFrom('webhook_events')
          .select(db.fn.countAll().as('n'))
          .where('is_bundle', '=', 0)
          .executeTakeFirst()) as { n: number }
      ).n,
    )
  const fanMs = threadCpuMs() - fanBefore
  const bytes = readFileSync(file).length
  await handle.close()
  return {
    writeUsPerScan: (writeMs * 1000) / n,
    fanOutUsPerEvent: fanned ? (fanMs * 1000) / fanned : 0,
    fileBytes: bytes,
  }
}

async function main() {
  requireBuild()
  const dists = [join(ROOT, 'server/dist'), ...process.argv.slice(2).map((d) => resolve(d))]
  const builds = await Promise.all(dists.map(build))
  const dir = mkdtempSync(join(tmpdir(), 'qrctl-bench-webhook-writer-'))
  const results = new Map<string, { write: number[]; fan: number[]; bytes: number[] }>()
  try {
    for (let r = 0; r < REPEATS; r++)
      for (const [i, b] of builds.entries())
        for (const webhooks of r % 2 ? [WEBHOOKS, 0] : [0, WEBHOOKS]) {
          const file = join(dir, `r${r}-b${i}-w${webhooks}.db`)
          const m = await run(b, file, webhooks)
          for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true })
          const key = `${i === 0 ? 'this build' : dists[i]} ${webhooks ? 'with' : 'without'}`
          const entry = results.get(key) ?? { write: [], fan: [], bytes: [] }
          entry.write.push(m.writeUsPerScan)
          entry.fan.push(m.fanOutUsPerEvent)
          entry.bytes.push(m.fileBytes)
          results.set(key, entry)
          process.stdout.write(
            `${key.padEnd(40)} write ${m.writeUsPerScan.toFixed(2)} µs/scan  fan-out ${m.fanOutUsPerEvent.toFixed(2)} µs/event  file ${(m.fileBytes / 1e6).toFixed(1)} MB\n`,
          )
        }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
  const summary = Object.fromEntries(
    [...results].map(([k, v]) => [
      k,
      {
        writeUsPerScan: round(median(v.write)),
        fanOutUsPerEvent: round(median(v.fan)),
        fileMB: round(median(v.bytes) / 1e6, 1),
      },
    ]),
  )
  process.stdout.write(
    `${JSON.stringify({ batches: BATCHES, batch: BATCH, load: readFileSync('/proc/loadavg', 'utf8').trim(), summary }, null, 2)}\n`,
  )
}

await main()
