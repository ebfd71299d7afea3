/**
 * Analytics latency of the built server for one code with 1,000,000 scans over 365 days,
 * against the same call for a code with 10,000 scans (the baseline, same run, same server).
 * Scans are seeded through the server's own bulk write path (the one the scan buffer uses),
 * not through a million HTTP requests. Load generator on core 0, server on core 1.
 *
 *   npm run build && npm run bench:analytics -w @qrctl/bench
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { freePort, type LoadResult, load, ROOT, requireBuild, round, startQrctl } from './redirect-support.js'

const DAY_MS = 86_400_000
const DAYS = 365
const BIG = Number(process.env.BENCH_SCANS ?? 1_000_000)
const SMALL = 10_000
const MEASURE_S = Number(process.env.BENCH_SECONDS ?? 10)

interface ScanEvent {
  qrCodeId: string
  scannedAt: string
  visitorId: string
  device: string
  browser: string | null
  os: string | null
  country: string | null
  city: string | null
  referrer: string | null
}

// The server's own modules, from its build (the benchmark runs the build anyway).
const dist = (path: string) => import(pathToFileURL(join(ROOT, 'server/dist', path)).href)

/** A deterministic generator, so every run seeds the same data. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

/** Long-tailed: the first values are the most frequent (weight 1/rank), as in real traffic. */
function zipf<T>(values: T[], rand: () => number): () => T {
  const weights = values.map((_, i) => 1 / (i + 1))
  const total = weights.reduce((a, b) => a + b, 0)
  let sum = 0
  const cumulative = weights.map((w) => {
    sum += w / total
    return sum
  })
  return () => {
    const u = rand()
    const i = cumulative.findIndex((c) => u <= c)
    return values[i === -1 ? values.length - 1 : i] as T
  }
}

const names = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`)

/** `count` scans of one code, in time order over the last DAYS days, from count/5 visitors. */
function* scans(qrCodeId: string, count: number, now: number, seed: number): Generator<ScanEvent[]> {
  const rand = random(seed)
  const device = zipf(['mobile', 'desktop', 'tablet', 'other'], rand)
  const browser = zipf(
    ['Mobile Safari', 'Chrome', 'Samsung Internet', 'Firefox', 'Edge', 'Opera', null, 'UC'],
    rand,
  )
  const os = zipf(['iOS', 'Android', 'Windows', 'Mac OS', 'Linux', null, 'Chromium OS'], rand)
  const country = zipf([...names('C', 39), null], rand)
  const city = zipf([...names('City ', 149), null], rand)
  const referrer = zipf(['direct', ...names('ref', 23).map((r) => `${r}.example`), null], rand)
  const visitors = Math.max(1, Math.floor(count / 5))
  const start = now - DAYS * DAY_MS + 60_000
  const span = DAYS * DAY_MS - 120_000
  let batch: ScanEvent[] = []
  for (let i = 0; i < count; i++) {
    batch.push({
      qrCodeId,
      scannedAt: new Date(start + Math.floor((i / count) * span)).toISOString(),
      // Skewed: some visitors come back often, most once or twice.
      visitorId: `visitor-${Math.floor(visitors * rand() ** 2)}`,
      device: device(),
      browser: browser(),
      os: os(),
      country: country(),
      city: city(),
      referrer: referrer(),
    })
    if (batch.length === 5000) {
      yield batch
      batch = []
    }
  }
  if (batch.length > 0) yield batch
}

async function main() {
  requireBuild()
  const dir = mkdtempSync(join(tmpdir(), 'qrctl-bench-analytics-'))
  const dbFile = join(dir, 'qrctl.db')
  try {
    const setupPort = await freePort()
    const setup = await startQrctl(dbFile, setupPort)
    const create = async (name: string) => {
      const res = await fetch(`http://127.0.0.1:${setupPort}/api/v1/qr-codes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${setup.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, type: 'dynamic', contentType: 'url', content: 'https://example.com/' }),
      })
      return ((await res.json()) as { data: { id: string } }).data.id
    }
    const small = await create('10k scans')
    const big = await create(`${BIG} scans`)
    await setup.stop()

    const { loadConfig } = await dist('config.js')
    const { openDatabase } = await dist('db/database.js')
    const { writeScans } = await dist('modules/scans/scans.service.js')
    const handle = openDatabase(loadConfig({ DATABASE_URL: `file:${dbFile}` }).database)
    const now = Date.now()
    // Both codes were created a year ago, so period=all covers DAYS days.
    await handle.db
      .updateTable('qr_codes')
      .set({ created_at: new Date(now - DAYS * DAY_MS).toISOString() })
      .where('id', 'in', [small, big])
      .execute()
    for (const [id, count, seed] of [
      [small, SMALL, 1],
      [big, BIG, 2],
    ] as const) {
      const started = performance.now()
      for (const batch of scans(id, count, now, seed)) await writeScans(handle, batch)
      const seconds = (performance.now() - started) / 1000
      process.stdout.write(
        `seeded ${count} scans in ${seconds.toFixed(1)} s (${Math.round(count / seconds)}/s)\n`,
      )
    }
    await handle.close()

    const port = await freePort()
    const server = await startQrctl(dbFile, port)
    const measure = async (id: string, period: string): Promise<LoadResult> => {
      const url = `http://127.0.0.1:${port}/api/v1/qr-codes/${id}/analytics?period=${period}`
      const headers = { authorization: `Bearer ${setup.apiKey}` }
      const check = await fetch(url, { headers })
      const body = (await check.json()) as { data: { totalEvents: number; eventsByDay: unknown[] } }
      process.stdout.write(
        `  ${period}: totalEvents ${body.data.totalEvents}, ${body.data.eventsByDay.length} days\n`,
      )
      await load({ url, headers, connections: 1, durationSeconds: 2 })
      return load({ url, headers, connections: 1, durationSeconds: MEASURE_S })
    }
    const results: Record<string, { small: LoadResult; big: LoadResult }> = {}
    for (const period of ['all', '90d', '7d']) {
      const smallResult = await measure(small, period)
      const bigResult = await measure(big, period)
      results[period] = { small: smallResult, big: bigResult }
      process.stdout.write(
        `period=${period}: ${SMALL} scans p50 ${smallResult.p50.toFixed(2)} ms (p99 ${smallResult.p99.toFixed(2)}); ` +
          `${BIG} scans p50 ${bigResult.p50.toFixed(2)} ms (p99 ${bigResult.p99.toFixed(2)}); ratio ${round(bigResult.p50 / smallResult.p50)}\n`,
      )
    }
    await server.stop()

    const all = results.all as { small: LoadResult; big: LoadResult }
    const ratio = all.big.p50 / all.small.p50
    const summary = {
      scans: { big: BIG, small: SMALL },
      days: DAYS,
      periods: Object.fromEntries(
        Object.entries(results).map(([period, r]) => [
          period,
          {
            smallP50Ms: round(r.small.p50),
            bigP50Ms: round(r.big.p50),
            ratio: round(r.big.p50 / r.small.p50),
          },
        ]),
      ),
      targets: { bigP50Ms: '<= 50', ratio: '<= 2' },
    }
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`)
    const ok = all.big.p50 <= 50 && ratio <= 2
    process.stdout.write(
      `\nanalytics period=all: p50 ${round(all.big.p50)} ms at ${BIG} scans (target <= 50), ${round(ratio)}x its p50 at ${SMALL} (target <= 2): ${ok ? 'PASS' : 'FAIL'}\n`,
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
