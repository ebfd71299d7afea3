/**
 * Issue #19: one account with 100,000 codes; GET /qr-codes with a search, a tag filter and each
 * sort, at p50 and p95, on SQLite and (with BENCH_DATABASE_URL or TEST_DATABASE_URL, a server
 * where a fresh database may be created) PostgreSQL. The baseline, measured in the same run on
 * the same data, is the v1 list (newest first, no filter). Target: p50 under 30 ms for each.
 * Codes are seeded through the server's own repository (the insert path the API uses), not
 * through 100,000 HTTP requests. Client on core 0, server on core 1.
 *
 *   npm run build && npm run bench:organising -w @qrctl/bench
 *
 * BENCH_ONLY=sqlite|postgres measures one dialect.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import { freePort, ROOT, requireBuild, round, startQrctl } from './redirect-support.js'

const CODES = Number(process.env.BENCH_CODES ?? 100_000)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200)
const TARGET_P50_MS = 30

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

const CAMPAIGNS = ['spring', 'summer', 'autumn', 'winter', 'catalogue', 'print', 'flyer', 'event']

/** 300 restaurants with a code per table, and a product catalogue: the customers of issue #19. */
function makeCodes(accountId: string, count: number) {
  const rand = random(19)
  const base = Date.parse('2025-01-01T00:00:00.000Z')
  const hex = (n: number, width: number) => n.toString(16).padStart(width, '0')
  return Array.from({ length: count }, (_, i) => {
    const restaurant = i % 300
    const isMenu = i % 3 !== 0
    const createdAt = new Date(base + i * 60_000).toISOString()
    const tags = [
      isMenu ? `restaurant:${restaurant}` : `product:${i % 5000}`,
      CAMPAIGNS[Math.floor(rand() * CAMPAIGNS.length)] as string,
      ...(rand() < 0.2 ? ['vip'] : []),
    ].sort()
    return {
      id: `${hex(i, 8)}-0000-4000-8000-${hex(Math.floor(rand() * 2 ** 48), 12)}`,
      accountId,
      name: isMenu
        ? `Table ${(i % 40) + 1} – Restaurant ${restaurant}`
        : `Product ${i} ${CAMPAIGNS[i % 8]} edition`,
      type: 'dynamic',
      contentType: 'url',
      content: isMenu
        ? `https://menus.example/r/${restaurant}/table/${i % 40}`
        : `https://shop.example/p/${i}`,
      targetUrl: isMenu ? `https://menus.example/r/${restaurant}` : `https://shop.example/p/${i}?utm=qr`,
      shortCode: `b${i.toString(36).padStart(6, '0')}`,
      style: null,
      isActive: rand() > 0.1,
      totalScans: Math.floor(rand() ** 3 * 50_000),
      externalId: isMenu ? null : `SKU-${String(i).padStart(7, '0')}`,
      tags,
      createdAt,
      updatedAt: new Date(base + count * 60_000 + Math.floor(rand() * 30 * 86_400_000)).toISOString(),
      deletedAt: null,
    }
  })
}

/** The database for one dialect: a SQLite file, or a fresh PostgreSQL database. */
async function database(dialect: 'sqlite' | 'postgres') {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'qrctl-bench-organising-'))
    return {
      url: `file:${join(dir, 'qrctl.db')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    }
  }
  const admin = process.env.BENCH_DATABASE_URL ?? (process.env.TEST_DATABASE_URL as string)
  const name = `qrctl_bench_${Date.now().toString(36)}`
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: admin })
    await client.connect()
    await client.query(sql)
    await client.end()
  }
  await run(`CREATE DATABASE ${name}`)
  const url = new URL(admin)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}

interface Figure {
  query: string
  total: number
  p50: number
  p95: number
}

async function measure(base: string, apiKey: string, query: string): Promise<Figure> {
  const url = `${base}/api/v1/qr-codes?${query}`
  const headers = { authorization: `Bearer ${apiKey}` }
  const first = await fetch(url, { headers })
  if (first.status !== 200) throw new Error(`${query}: ${first.status} ${await first.text()}`)
  const { total } = (await first.json()) as { total: number }
  for (let i = 0; i < 20; i++) await (await fetch(url, { headers })).arrayBuffer()
  const times: number[] = []
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now()
    await (await fetch(url, { headers })).arrayBuffer()
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] as number
  return { query, total, p50: at(0.5), p95: at(0.95) }
}

const QUERIES = [
  ['baseline', ''],
  ['search (name)', 'search=restaurant%20217'],
  ['search (externalId)', 'search=sku-00421'],
  ['search (2 chars)', 'search=zz'],
  ['search, no match', 'search=nothing%20here'],
  ['tag (common)', 'tag=spring'],
  ['tag (rare)', 'tag=restaurant:43'],
  ['tag + tag', 'tag=spring&tag=vip'],
  ['tag + search + sort', 'tag=vip&search=table%201&sort=-totalScans'],
  ['active + sort', 'isActive=false&sort=name'],
  ...['createdAt', '-createdAt', 'updatedAt', '-updatedAt', 'name', '-name', 'totalScans', '-totalScans'].map(
    (sort) => [`sort=${sort}`, `sort=${sort}`],
  ),
  ['sort=-totalScans, page 100', 'sort=-totalScans&offset=5000'],
] as const

async function runDialect(dialect: 'sqlite' | 'postgres') {
  const db = await database(dialect)
  try {
    const port = await freePort()
    const setup = await startQrctl('unused', port, { DATABASE_URL: db.url })
    await setup.stop()
    const { loadConfig } = await dist('config.js')
    const { openDatabase } = await dist('db/database.js')
    const repo = await dist('modules/qr-codes/qr-codes.repository.js')
    const handle = openDatabase(loadConfig({ DATABASE_URL: db.url }).database)
    const account = await handle.db.selectFrom('accounts').select('id').executeTakeFirstOrThrow()
    const started = performance.now()
    const codes = makeCodes(account.id, CODES)
    for (let i = 0; i < codes.length; i += 500) {
      await handle.db
        .transaction()
        .execute((trx: unknown) => repo.insertQrCodes(trx, codes.slice(i, i + 500)))
    }
    if (dialect === 'postgres') {
      // Statistics and the visibility map, as autovacuum leaves them after a bulk load.
      const client = new pg.Client({ connectionString: db.url })
      await client.connect()
      await client.query('vacuum analyze')
      await client.end()
    }
    process.stdout.write(
      `${dialect}: seeded ${CODES} codes in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    )
    await handle.close()

    const server = await startQrctl('unused', port, { DATABASE_URL: db.url })
    const apiKey = setup.apiKey as string
    const figures: Figure[] = []
    for (const [label, query] of QUERIES) {
      const figure = await measure(`http://127.0.0.1:${port}`, apiKey, query)
      figures.push({ ...figure, query: label })
      process.stdout.write(
        `  ${label.padEnd(28)} total ${String(figure.total).padStart(6)}  p50 ${figure.p50.toFixed(2).padStart(6)} ms  p95 ${figure.p95.toFixed(2).padStart(6)} ms\n`,
      )
    }
    await server.stop()
    return figures
  } finally {
    await db.drop()
  }
}

async function main() {
  requireBuild()
  const only = process.env.BENCH_ONLY
  const dialects: ('sqlite' | 'postgres')[] = only === 'postgres' ? [] : ['sqlite']
  if (only === 'sqlite') process.stdout.write('PostgreSQL skipped: BENCH_ONLY=sqlite\n')
  else if (process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL) dialects.push('postgres')
  else process.stdout.write('PostgreSQL skipped: set BENCH_DATABASE_URL=postgres://… to measure it too\n')
  const summary: Record<string, unknown> = {}
  let ok = true
  for (const dialect of dialects) {
    const figures = await runDialect(dialect)
    const baseline = figures[0] as Figure
    const worst = figures.reduce((a, b) => (b.p50 > a.p50 ? b : a))
    ok &&= worst.p50 < TARGET_P50_MS
    summary[dialect] = {
      codes: CODES,
      figures: figures.map((f) => ({
        ...f,
        p50: round(f.p50),
        p95: round(f.p95),
        ratio: round(f.p50 / baseline.p50),
      })),
      worstP50: { query: worst.query, ms: round(worst.p50) },
    }
  }
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`)
  process.stdout.write(
    `\norganising at ${CODES} codes: every p50 under ${TARGET_P50_MS} ms: ${ok ? 'PASS' : 'FAIL'}\n`,
  )
}

await main()
