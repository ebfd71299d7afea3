/**
 * Scans for benchmarks, written straight into a database (a million scans through the server's
 * write path take minutes), with every rollup the server reads built from them in SQL, the way
 * the scan-window migration back-fills them.
 */
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { ROOT } from './redirect-support.js'

const require = createRequire(join(ROOT, 'server/package.json'))

export const DAY_MS = 86_400_000

/** A deterministic generator, so every run seeds the same data. */
export function random(seed: number): () => number {
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
export function zipf<T>(values: T[], rand: () => number): () => T {
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

export const names = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`)

/** A scan row: qr_code_id, scanned_at, visitor_id, device, browser, os, country, city, referrer. */
export type ScanRow = [
  string,
  string,
  string,
  string,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
]

/** `count` scans of one code spread evenly over the `days` days before `now`, from count/5 visitors. */
export function* scanRows(
  qrCodeId: string,
  count: number,
  now: number,
  days: number,
  seed: number,
): Generator<ScanRow[]> {
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
  const start = now - days * DAY_MS + 60_000
  const span = days * DAY_MS - 120_000
  let batch: ScanRow[] = []
  for (let i = 0; i < count; i++) {
    batch.push([
      qrCodeId,
      new Date(start + Math.floor((i / count) * span)).toISOString(),
      // Skewed: some visitors come back often, most once or twice.
      `visitor-${Math.floor(visitors * rand() ** 2)}`,
      device(),
      browser(),
      os(),
      country(),
      city(),
      referrer(),
    ])
    if (batch.length === 20_000) {
      yield batch
      batch = []
    }
  }
  if (batch.length > 0) yield batch
}

const DIMENSIONS: [string, string][] = [
  ['scans', "''"],
  ['device', 'device'],
  ['browser', "coalesce(browser, 'Unknown')"],
  ['os', "coalesce(os, 'Unknown')"],
  ['country', "coalesce(country, 'Unknown')"],
  ['city', "coalesce(city, 'Unknown')"],
  ['referrer', "coalesce(referrer, 'Unknown')"],
]

/** The rollup statements for the scans of `codes` (a SQL list of quoted ids). */
function rollupSql(dialect: 'sqlite' | 'postgres', codes: string): string[] {
  const quarter =
    dialect === 'postgres'
      ? 'cast(floor(extract(epoch from cast(scanned_at as timestamptz)) / 900) as integer)'
      : "cast(strftime('%s', scanned_at) as integer) / 900"
  const where = `where qr_code_id in (${codes})`
  const out: string[] = []
  for (const [dimension, value] of DIMENSIONS) {
    out.push(
      `insert into scan_daily (qr_code_id, dimension, day, value, count) select qr_code_id, '${dimension}', substr(scanned_at, 1, 10), ${value}, count(*) from scans ${where} group by 1, 3, 4`,
      `insert into scan_totals (qr_code_id, dimension, value, count) select qr_code_id, '${dimension}', ${value}, count(*) from scans ${where} group by 1, 3`,
      `insert into scan_quarters (qr_code_id, dimension, quarter, value, count) select qr_code_id, '${dimension}', ${quarter}, ${value}, count(*) from scans ${where} group by 1, 3, 4`,
    )
  }
  out.push(
    // The running totals of every value, as migration 2026_11_29_1200 back-fills them.
    `insert into scan_running (qr_code_id, dimension, value, quarter, count, running)
     select qr_code_id, dimension, value, quarter, count,
       sum(count) over (partition by qr_code_id, dimension, value order by quarter rows unbounded preceding)
     from scan_quarters ${where}`,
    // Each visitor-day with its first and last quarter hour and the visit days around it, as
    // migration 2026_11_28_1200 back-fills them.
    `insert into scan_visitor_dates (qr_code_id, day, visitor_id, first_quarter, last_quarter, previous_day, next_day)
     select qr_code_id, day, visitor_id, first_quarter, last_quarter,
       coalesce(lag(day) over (partition by qr_code_id, visitor_id order by day), ''),
       coalesce(lead(day) over (partition by qr_code_id, visitor_id order by day), '')
     from (
       select qr_code_id, substr(scanned_at, 1, 10) as day, visitor_id,
         min(${quarter}) as first_quarter, max(${quarter}) as last_quarter
       from scans ${where}
       group by qr_code_id, substr(scanned_at, 1, 10), visitor_id
     ) days`,
    // The visitor gaps, as the migration back-fills them.
    `insert into scan_visitor_gaps (qr_code_id, day, previous_day, visitors)
     select qr_code_id, day, previous_day,
       case when previous_day = '' then n
         else sum(case when previous_day = '' then 0 else n end)
           over (partition by qr_code_id, day order by previous_day rows unbounded preceding)
       end
     from (
       select qr_code_id, day, previous_day, count(*) as n
       from (
         select qr_code_id, day,
           coalesce(lag(day) over (partition by qr_code_id, visitor_id order by day), '') as previous_day
         from scan_visitor_dates ${where}
       ) visits
       group by qr_code_id, day, previous_day
     ) gaps`,
    // v1's last-seen histogram, which windows of one code ending today read.
    `insert into scan_visitor_days (qr_code_id, day, count) select qr_code_id, last_day, count(*) from (select qr_code_id, visitor_id, max(day) as last_day from scan_visitor_dates ${where} group by 1, 2) last_days group by 1, 2`,
    `update qr_codes set total_scans = (select count(*) from scans where scans.qr_code_id = qr_codes.id) ${where.replace('qr_code_id', 'id')}`,
  )
  return out
}

/** Writes the scans and builds their rollups. `database` is a SQLite file or a postgres:// URL. */
export async function seedScans(
  database: string,
  batches: Iterable<ScanRow[]>,
  codes: string[],
): Promise<number> {
  const list = codes.map((c) => `'${c}'`).join(',')
  let count = 0
  if (database.startsWith('postgres')) {
    const pg = require('pg') as typeof import('pg')
    const client = new pg.Client({ connectionString: database })
    await client.connect()
    try {
      for (const batch of batches) {
        const columns = Array.from({ length: 9 }, (_, c) => batch.map((row) => row[c]))
        await client.query(
          `insert into scans (qr_code_id, scanned_at, visitor_id, device, browser, os, country, city, referrer)
           select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])`,
          columns,
        )
        count += batch.length
      }
      for (const statement of rollupSql('postgres', list)) await client.query(statement)
      await client.query('analyze')
    } finally {
      await client.end()
    }
    return count
  }
  const Sqlite = require('better-sqlite3') as typeof import('better-sqlite3')
  const db = new Sqlite(database.replace(/^file:/, ''))
  try {
    const insert = db.prepare(
      'insert into scans (qr_code_id, scanned_at, visitor_id, device, browser, os, country, city, referrer) values (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    )
    const write = db.transaction((rows: ScanRow[]) => {
      for (const row of rows) insert.run(...row)
    })
    for (const batch of batches) {
      write(batch)
      count += batch.length
    }
    db.transaction(() => {
      for (const statement of rollupSql('sqlite', list)) db.exec(statement)
    })()
    db.exec('analyze')
  } finally {
    db.close()
  }
  return count
}
