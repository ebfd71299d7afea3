/**
 * DESIGN §16's cost rule: analytics over windows in any zone, per code and account-wide, at
 * 1,000,000 scans over a year against the same calls at 10,000 (the baseline, same run, same
 * server). Zones: UTC, Asia/Kathmandu (+05:45) and America/New_York (DST). SQLite always;
 * PostgreSQL too with BENCH_DATABASE_URL (an empty database the bench may fill). Load
 * generator on core 0, server on core 1.
 *
 *   npm run build && npm run bench:analytics-windows -w @qrctl/bench
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  freePort,
  type LoadResult,
  load,
  requireBuild,
  round,
  SERVER_MAIN,
  startQrctl,
} from './redirect-support.js'
import { DAY_MS, scanRows, seedScans } from './scan-seed.js'

const DAYS = 365
const BIG = Number(process.env.BENCH_SCANS ?? 1_000_000)
const SMALL = 10_000
const MEASURE_S = Number(process.env.BENCH_SECONDS ?? 5)

interface Setup {
  small: { key: string; code: string }
  big: { key: string; code: string }
}

/** Two accounts, one code each, created through the server; then their scans, seeded. */
async function prepare(database: string, dbEnv: Record<string, string>): Promise<Setup> {
  const port = await freePort()
  const server = await startQrctl(database, port, dbEnv)
  const created = async (key: string, name: string) => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/qr-codes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, type: 'dynamic', contentType: 'url', content: 'https://example.com/' }),
    })
    return ((await res.json()) as { data: { id: string } }).data.id
  }
  const other = spawnSync(
    process.execPath,
    [SERVER_MAIN, 'admin', 'create-account', '--name', 'big', '--json'],
    {
      env: { PATH: process.env.PATH ?? '', ...dbEnv },
      encoding: 'utf8',
    },
  )
  const bigKey = (JSON.parse(other.stdout) as { apiKey: string }).apiKey
  const setup = {
    small: { key: server.apiKey as string, code: await created(server.apiKey as string, '10k scans') },
    big: { key: bigKey, code: await created(bigKey, `${BIG} scans`) },
  }
  await server.stop()
  const now = Date.now()
  for (const [who, count, seed] of [
    [setup.small, SMALL, 1],
    [setup.big, BIG, 2],
  ] as const) {
    const started = performance.now()
    await seedScans(dbEnv.DATABASE_URL as string, scanRows(who.code, count, now, DAYS, seed), [who.code])
    process.stdout.write(`seeded ${count} scans in ${((performance.now() - started) / 1000).toFixed(1)} s\n`)
  }
  return setup
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)

async function measureAll(database: string, dbEnv: Record<string, string>, dialect: string) {
  const setup = await prepare(database, dbEnv)
  const port = await freePort()
  const server = await startQrctl(database, port, dbEnv)
  const year = `from=${day(Date.now() - 365 * DAY_MS)}&to=${day(Date.now())}`
  const cases: [string, (code: string) => string][] = [
    ['code 30d UTC', (code) => `/qr-codes/${code}/analytics?period=30d`],
    ['code 30d Asia/Kathmandu', (code) => `/qr-codes/${code}/analytics?period=30d&timezone=Asia/Kathmandu`],
    ['code 366d America/New_York', (code) => `/qr-codes/${code}/analytics?${year}&timezone=America/New_York`],
    [
      'code 7d compare Kathmandu',
      (code) => `/qr-codes/${code}/analytics?period=7d&timezone=Asia/Kathmandu&compare=previous`,
    ],
    ['scans 30d New_York', (code) => `/qr-codes/${code}/scans?timezone=America/New_York`],
    ['account 30d Asia/Kathmandu', () => '/analytics?period=30d&timezone=Asia/Kathmandu'],
    ['account 366d America/New_York', () => `/analytics?${year}&timezone=America/New_York`],
  ]
  const rows: Record<string, { smallP50Ms: number; bigP50Ms: number; ratio: number }> = {}
  try {
    for (const [name, path] of cases) {
      const results: LoadResult[] = []
      for (const who of [setup.small, setup.big]) {
        const url = `http://127.0.0.1:${port}/api/v1${path(who.code)}`
        const headers = { authorization: `Bearer ${who.key}` }
        const check = await fetch(url, { headers })
        if (check.status !== 200) throw new Error(`${name}: ${check.status} ${await check.text()}`)
        await load({ url, headers, connections: 1, durationSeconds: 1 })
        results.push(await load({ url, headers, connections: 1, durationSeconds: MEASURE_S }))
      }
      const [small, big] = results as [LoadResult, LoadResult]
      rows[name] = {
        smallP50Ms: round(small.p50),
        bigP50Ms: round(big.p50),
        ratio: round(big.p50 / small.p50),
      }
      process.stdout.write(
        `${dialect} ${name}: p50 ${round(small.p50)} ms at ${SMALL}, ${round(big.p50)} ms at ${BIG}: ${round(big.p50 / small.p50)}x\n`,
      )
    }
  } finally {
    await server.stop()
  }
  return rows
}

async function main() {
  requireBuild()
  const dir = mkdtempSync(join(tmpdir(), 'qrctl-bench-windows-'))
  try {
    const dbFile = join(dir, 'qrctl.db')
    const summary: Record<string, unknown> = {}
    // BENCH_ONLY=postgres skips the SQLite run.
    if (process.env.BENCH_ONLY !== 'postgres')
      summary.sqlite = await measureAll(dbFile, { DATABASE_URL: `file:${dbFile}` }, 'sqlite')
    const pgUrl = process.env.BENCH_DATABASE_URL
    if (pgUrl) summary.postgres = await measureAll(dbFile, { DATABASE_URL: pgUrl }, 'postgres')
    process.stdout.write(
      `${JSON.stringify({ scans: { small: SMALL, big: BIG }, days: DAYS, target: 'ratio <= 2', ...summary }, null, 2)}\n`,
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
