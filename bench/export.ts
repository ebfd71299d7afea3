/**
 * DESIGN §16: the CSV export streams. 1,000,000 scans (a year of one code) exported through
 * the built server; the server's RSS is sampled from /proc every 20 ms while the client reads
 * as fast as it can. Targets: RSS grows by less than 50 MB over its level before the export,
 * and at least 100,000 rows a second. SQLite always; PostgreSQL too with BENCH_DATABASE_URL.
 *
 *   npm run build && npm run bench:export -w @qrctl/bench
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, requireBuild, round, startQrctl } from './redirect-support.js'
import { DAY_MS, scanRows, seedScans } from './scan-seed.js'

const SCANS = Number(process.env.BENCH_SCANS ?? 1_000_000)
const DAYS = 365

const rssMb = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024
}

async function run(database: string, dbEnv: Record<string, string>, dialect: string) {
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

  const port = await freePort()
  const server = await startQrctl(database, port, dbEnv)
  const pid = server.process.pid as number
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
  const url = `http://127.0.0.1:${port}/api/v1/analytics/export?from=${day(Date.now() - DAYS * DAY_MS)}&to=${day(Date.now())}&timezone=Asia/Kathmandu`
  const headers = { authorization: `Bearer ${key}` }
  try {
    // Warm up: one small export, so the baseline includes the code paths' own memory.
    await (await fetch(url.replace(/from=[^&]+/, `from=${day(Date.now())}`), { headers })).text()
    const before = rssMb(pid)
    let peak = before
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(pid))
    }, 20)
    const t0 = performance.now()
    const answer = await fetch(url, { headers })
    let rows = -1
    let bytes = 0
    for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength
      for (const byte of chunk) if (byte === 0x0a) rows++
    }
    const seconds = (performance.now() - t0) / 1000
    clearInterval(sampler)
    peak = Math.max(peak, rssMb(pid))
    const result = {
      rows,
      megabytes: round(bytes / 1e6, 1),
      seconds: round(seconds),
      rowsPerSecond: Math.round(rows / seconds),
      rssBeforeMb: round(before, 1),
      rssPeakMb: round(peak, 1),
      rssGrowthMb: round(peak - before, 1),
    }
    const ok = rows === SCANS && result.rssGrowthMb < 50 && result.rowsPerSecond >= 100_000
    process.stdout.write(
      `${dialect}: ${rows} rows in ${result.seconds} s (${result.rowsPerSecond}/s, target >= 100000); RSS ${result.rssBeforeMb} → ${result.rssPeakMb} MB (+${result.rssGrowthMb}, target < 50): ${ok ? 'PASS' : 'FAIL'}\n`,
    )
    return result
  } finally {
    await server.stop()
  }
}

async function main() {
  requireBuild()
  const dir = mkdtempSync(join(tmpdir(), 'qrctl-bench-export-'))
  try {
    const dbFile = join(dir, 'qrctl.db')
    const summary: Record<string, unknown> = {}
    // BENCH_ONLY=postgres skips the SQLite run.
    if (process.env.BENCH_ONLY !== 'postgres')
      summary.sqlite = await run(dbFile, { DATABASE_URL: `file:${dbFile}` }, 'sqlite')
    const pgUrl = process.env.BENCH_DATABASE_URL
    if (pgUrl) summary.postgres = await run(dbFile, { DATABASE_URL: pgUrl }, 'postgres')
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
