import { PostgresAdapter, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely'
import type { Db, Dialect } from '../../db/database.js'
import type { Database } from '../../db/schema.js'
import { ALL_SCANS, DIMENSIONS } from '../scans/scan-rollup.js'
import { QUARTER_MS } from '../scans/scan-windows.js'
import type { Split } from './window.js'

/**
 * The codes a query covers: given ids, or the account's live codes, those carrying every one of
 * `tags` (DESIGN §17) when given, and among `within` when given.
 */
export type CodeSet =
  | { ids: string[] }
  | { accountId: string; tags?: readonly string[]; within?: readonly string[] }

/** The ids of a code set, as a list or as a subquery over the account's live codes. */
export function codeIds(db: Db, codes: CodeSet) {
  if ('ids' in codes) return codes.ids
  let query = db
    .selectFrom('qr_codes')
    .select('qr_codes.id')
    .where('qr_codes.account_id', '=', codes.accountId)
    .where('qr_codes.deleted_at', 'is', null)
  if (codes.within) query = query.where('qr_codes.id', 'in', codes.within)
  for (const tag of codes.tags ?? [])
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('qr_code_tags')
          .select('qr_code_tags.qr_code_id')
          .whereRef('qr_code_tags.qr_code_id', '=', 'qr_codes.id')
          .where('qr_code_tags.tag', '=', tag),
      ),
    )
  return query
}

/** When the earliest of the set's codes was created (an ISO instant), if it has any. */
export async function earliestCreationOf(db: Db, codes: CodeSet): Promise<string | undefined> {
  const row = await db
    .selectFrom('qr_codes')
    .select((eb) => eb.fn.min('created_at').as('first'))
    .where('id', 'in', codeIds(db, codes))
    .executeTakeFirst()
  return row?.first ?? undefined
}

const quarter = (ms: number) => Math.floor(ms / QUARTER_MS)
const iso = (ms: number) => new Date(ms).toISOString()

/**
 * Up to this many codes, a window's counts come from each code's running totals (scan_running:
 * two seeks per code and value, or per code and day boundary); more codes read the rollup rows
 * inside the window, whose cost does not multiply by the codes.
 */
const RUNNING_CODES = 100

/** The codes' ids when their running totals serve, else null. */
export const runningIds = (codes: CodeSet): string[] | null =>
  'ids' in codes && codes.ids.length > 0 && codes.ids.length <= RUNNING_CODES ? codes.ids : null

/**
 * The code's scans of a dimension's value before quarter `q` (all of them up to and including
 * the last quarter before it that has any): one seek in scan_running's key.
 */
const runningBefore = (
  code: RawBuilder<unknown>,
  dimension: RawBuilder<unknown>,
  value: RawBuilder<unknown>,
  q: number | RawBuilder<unknown>,
) =>
  sql<number>`coalesce((select r.running from scan_running r
    where r.qr_code_id = ${code} and r.dimension = ${dimension} and r.value = ${value} and r.quarter < ${q}
    order by r.quarter desc limit 1), 0)`

/** The instants a split window covers, [from, to). */
function splitSpan(split: Split): [number, number] | null {
  const ends: number[] = split.edges.flat()
  if (split.days) ends.push(Date.parse(split.days.first), Date.parse(split.days.last) + DAY)
  if (ends.length === 0) return null
  return [Math.min(...ends), Math.max(...ends)]
}

/** The codes among `ids` with no scan in quarter `q` or later: one seek each. */
async function endedBefore(db: Db, ids: readonly string[], q: number): Promise<string[]> {
  const result = await sql<{ id: string; last: number | string | null }>`
    with codes (id) as (values ${sql.join(ids.map((id) => sql`(${id})`))})
    select codes.id as id, (select r.quarter from scan_running r
      where r.qr_code_id = codes.id and r.dimension = ${ALL_SCANS} and r.value = ''
      order by r.quarter desc limit 1) as last
    from codes
  `.execute(db)
  return result.rows.filter((r) => r.last === null || Number(r.last) < q).map((r) => r.id)
}

/**
 * All scans of the codes before each of the given quarters (ascending), from the running totals:
 * one seek per code and quarter, whatever the scans between them. A zone's days are the
 * differences between consecutive day starts.
 */
export async function countBefore(
  db: Db,
  ids: readonly string[],
  quarters: readonly number[],
): Promise<number[]> {
  if (quarters.length === 0) return []
  const result = await sql<{ i: number | string; n: number | string | null }>`
    with bounds (i, q) as (values ${sql.join(quarters.map((q, i) => sql`(cast(${i} as integer), cast(${q} as integer))`))}),
      codes (id) as (values ${sql.join(ids.map((id) => sql`(${id})`))})
    select bounds.i as i, sum(${runningBefore(sql.ref('codes.id'), sql.lit(ALL_SCANS), sql.lit(''), sql.ref('bounds.q'))}) as n
    from bounds cross join codes
    group by bounds.i
  `.execute(db)
  const out = quarters.map(() => 0)
  for (const row of result.rows) out[Number(row.i)] = Number(row.n ?? 0)
  return out
}

/**
 * Names sort by code point on both dialects, as SQLite does: PostgreSQL would otherwise use
 * the database's locale.
 */
const collated = (dialect: Dialect, column: string) =>
  dialect === 'postgres' ? sql`${sql.ref(column)} collate "C"` : sql.ref(column)

/** Scans per quarter hour in [from, to), summed over the codes. */
export async function countByQuarter(
  db: Db,
  codes: CodeSet,
  from: number,
  to: number,
): Promise<{ quarter: number; count: number }[]> {
  if (to <= from) return []
  const rows = await db
    .selectFrom('scan_quarters')
    .select((eb) => ['quarter', eb.fn.sum<number>('count').as('total')])
    .where('qr_code_id', 'in', codeIds(db, codes))
    .where('dimension', '=', ALL_SCANS)
    .where('quarter', '>=', quarter(from))
    .where('quarter', '<', quarter(to))
    .groupBy('quarter')
    .orderBy('quarter')
    .execute()
  return rows.map((r) => ({ quarter: Number(r.quarter), count: Number(r.total) }))
}

type CountRow = { qr_code_id: string; dimension: string; value: string; count: number }
type Rows = SelectQueryBuilder<Database, 'scan_daily' | 'scan_quarters', CountRow>

const DAY = 86_400_000
const isPostgres = (db: Db) => db.getExecutor().adapter instanceof PostgresAdapter

/**
 * How a split window's partial UTC days are read for the top lists: a piece of a day of at
 * most half a day from its quarter-hour rows; a longer one as the whole day's rows less the
 * quarter-hour rows of the rest of the day (scan_daily and scan_quarters hold the same scans,
 * written in one transaction). At a million scans a year each quarter hour holds about a
 * hundred (dimension, value) rows, so a Kathmandu window's two ends read 46 quarter hours
 * instead of 96, and New York's 40.
 */
export function edgeParts(edges: readonly [number, number][]): {
  add: [number, number][]
  days: string[]
  subtract: [number, number][]
} {
  const out = { add: [] as [number, number][], days: [] as string[], subtract: [] as [number, number][] }
  for (const [from, to] of edges) {
    for (let start = from; start < to; ) {
      const midnight = Math.floor(start / DAY) * DAY
      const end = Math.min(to, midnight + DAY)
      if (end - start <= DAY / 2) out.add.push([start, end])
      else {
        out.days.push(iso(midnight).slice(0, 10))
        if (midnight < start) out.subtract.push([midnight, start])
        if (end < midnight + DAY) out.subtract.push([end, midnight + DAY])
      }
      start = end
    }
  }
  return out
}

/**
 * Rollup rows of a split window: whole UTC days from scan_daily, its ends per quarter hour
 * (or as their day less the rest of it, `edgeParts`; those rows count negatively, so a sum
 * over them may be 0 for a value with no scan in the window).
 */
function rollupRows(
  db: Db,
  codes: CodeSet,
  dimensions: readonly string[],
  split: Split,
): { rows: Rows; signed: boolean } | null {
  const parts: Rows[] = []
  const daily = (where: (q: Rows) => Rows) =>
    where(
      db
        .selectFrom('scan_daily')
        .select(['qr_code_id', 'dimension', 'value', 'count'])
        .where('qr_code_id', 'in', codeIds(db, codes))
        .where('dimension', 'in', dimensions) as Rows,
    )
  const quarters = (ranges: [number, number][], sign: 1 | -1) =>
    db
      .selectFrom('scan_quarters')
      .select(['qr_code_id', 'dimension', 'value'])
      .select(sign === 1 ? sql<number>`count`.as('count') : sql<number>`0 - count`.as('count'))
      .where('qr_code_id', 'in', codeIds(db, codes))
      .where('dimension', 'in', dimensions)
      .where((eb) =>
        eb.or(
          ranges.map(([from, to]) =>
            eb.and([eb('quarter', '>=', quarter(from)), eb('quarter', '<', quarter(to))]),
          ),
        ),
      ) as unknown as Rows
  if (split.days) {
    const { first, last } = split.days
    parts.push(daily((q) => q.where('day', '>=', first).where('day', '<=', last)))
  }
  // SQLite only: on PostgreSQL the day-less-the-rest form measured slower (in-process, a
  // million scans, median of 15: top-list values of a 7-day Kathmandu window 4.4 → 7.6 ms, of
  // 30 days 8.8 → 10.9 ms; SQLite 6.8 → 2.9 and 5.1 → 5.1 ms).
  const edges = isPostgres(db) ? { add: split.edges.slice(), days: [], subtract: [] } : edgeParts(split.edges)
  if (edges.days.length > 0) parts.push(daily((q) => q.where('day', 'in', edges.days)))
  if (edges.add.length > 0) parts.push(quarters(edges.add, 1))
  if (edges.subtract.length > 0) parts.push(quarters(edges.subtract, -1))
  const [first, ...rest] = parts
  if (!first) return null
  return { rows: rest.reduce((all, part) => all.unionAll(part), first), signed: edges.subtract.length > 0 }
}

/** Scans per dimension and value over the codes in a split window (every value). */
export async function countByValue(
  db: Db,
  codes: CodeSet,
  split: Split,
  dimensions: readonly string[] = DIMENSIONS,
): Promise<{ dimension: string; value: string; count: number }[]> {
  const ids = runningIds(codes)
  const span = splitSpan(split)
  if (!span) return []
  if (ids) {
    // Every value the codes ever had (their lifetime totals), each counted as its running total
    // at the window's end less that at its start: two seeks per value.
    const [from, to] = span
    // A code with no scan from the window's end on (a window ending now, say) counts every
    // value's lifetime total there (scan_totals, written with the same scans): one seek fewer
    // per value.
    const ended = await endedBefore(db, ids, quarter(to))
    const atEnd = runningBefore(
      sql.ref('t.qr_code_id'),
      sql.ref('t.dimension'),
      sql.ref('t.value'),
      quarter(to),
    )
    const rows = await db
      .selectFrom('scan_totals as t')
      .select([
        't.dimension',
        't.value',
        sql<number>`${
          ended.length > 0
            ? sql`case when t.qr_code_id in (${sql.join(ended)}) then t.count else ${atEnd} end`
            : atEnd
        } - ${runningBefore(sql.ref('t.qr_code_id'), sql.ref('t.dimension'), sql.ref('t.value'), quarter(from))}`.as(
          'n',
        ),
      ])
      .where('t.qr_code_id', 'in', ids)
      .where('t.dimension', 'in', dimensions)
      .execute()
    const sums = new Map<string, { dimension: string; value: string; count: number }>()
    for (const r of rows) {
      const key = `${r.dimension}\0${r.value}`
      const sum = sums.get(key) ?? { dimension: r.dimension, value: r.value, count: 0 }
      sum.count += Number(r.n)
      sums.set(key, sum)
    }
    return [...sums.values()].filter((r) => r.count > 0)
  }
  const rollup = rollupRows(db, codes, dimensions, split)
  if (!rollup) return []
  let query = db
    .selectFrom(rollup.rows.as('t'))
    .select((eb) => ['t.dimension', 't.value', eb.fn.sum<number>('t.count').as('total')])
    .groupBy(['t.dimension', 't.value'])
  // Rows counted negatively can bring a value's sum to 0: such a value had no scan here.
  if (rollup.signed) query = query.having((eb) => eb.fn.sum('t.count'), '>', 0)
  const sums = await query.execute()
  return sums.map((r) => ({ dimension: r.dimension, value: r.value, count: Number(r.total) }))
}

/** The codes with the most scans in a split window, count desc then name asc (then id). */
export async function topCodes(
  db: Db,
  dialect: Dialect,
  codes: CodeSet,
  split: Split,
  limit: number,
): Promise<{ id: string; name: string; count: number }[]> {
  const ids = runningIds(codes)
  const span = splitSpan(split)
  if (!span) return []
  if (ids) {
    const [from, to] = span
    const counted = db
      .selectFrom('qr_codes as q')
      .select([
        'q.id',
        'q.name',
        sql<number>`${runningBefore(sql.ref('q.id'), sql.lit(ALL_SCANS), sql.lit(''), quarter(to))}
          - ${runningBefore(sql.ref('q.id'), sql.lit(ALL_SCANS), sql.lit(''), quarter(from))}`.as('total'),
      ])
      .where('q.id', 'in', ids)
    const top = await db
      .selectFrom(counted.as('t'))
      .select(['t.id', 't.name', 't.total'])
      .where('t.total', '>', 0)
      .orderBy('t.total', 'desc')
      .orderBy(collated(dialect, 't.name'))
      .orderBy('t.id')
      .limit(limit)
      .execute()
    return top.map((r) => ({ id: r.id, name: r.name, count: Number(r.total) }))
  }
  const rollup = rollupRows(db, codes, [ALL_SCANS], split)
  if (!rollup) return []
  const top = await db
    .selectFrom(rollup.rows.as('t'))
    .innerJoin('qr_codes', 'qr_codes.id', 't.qr_code_id')
    .select((eb) => ['qr_codes.id', 'qr_codes.name', eb.fn.sum<number>('t.count').as('total')])
    .groupBy(['qr_codes.id', 'qr_codes.name'])
    .having((eb) => eb.fn.sum('t.count'), '>', 0)
    .orderBy('total', 'desc')
    .orderBy(collated(dialect, 'qr_codes.name'))
    .orderBy('qr_codes.id')
    .limit(limit)
    .execute()
  return top.map((r) => ({ id: r.id, name: r.name, count: Number(r.total) }))
}

/**
 * Distinct visitors over the codes in a split window, exactly: the visitors of its whole UTC
 * days (one row per visitor and day) united with those of the scans at its two ends.
 */
export async function countVisitors(db: Db, codes: CodeSet, split: Split): Promise<number> {
  type VisitorRow = { visitor_id: string }
  const parts: SelectQueryBuilder<Database, 'scan_visitor_dates' | 'scans', VisitorRow>[] = []
  if (split.days) {
    const { first, last } = split.days
    parts.push(
      db
        .selectFrom('scan_visitor_dates')
        .select('visitor_id')
        .where('qr_code_id', 'in', codeIds(db, codes))
        .where('day', '>=', first)
        .where('day', '<=', last) as SelectQueryBuilder<Database, 'scan_visitor_dates' | 'scans', VisitorRow>,
    )
  }
  for (const [from, to] of split.edges) {
    parts.push(
      db
        .selectFrom('scans')
        .select('visitor_id')
        .where('qr_code_id', 'in', codeIds(db, codes))
        .where('scanned_at', '>=', iso(from))
        .where('scanned_at', '<', iso(to)) as SelectQueryBuilder<
        Database,
        'scan_visitor_dates' | 'scans',
        VisitorRow
      >,
    )
  }
  const [first, ...rest] = parts
  if (!first) return 0
  const all = rest.reduce((union, part) => union.union(part), first)
  const row = await db
    .selectFrom(all.as('v'))
    .select((eb) => eb.fn.count<number>('v.visitor_id').distinct().as('n'))
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

/** Scans per UTC day from the daily rollup (for windows whose days are UTC days). */
export async function countByUtcDay(
  db: Db,
  codes: CodeSet,
  first: string,
  last: string,
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('scan_daily')
    .select((eb) => ['day', eb.fn.sum<number>('count').as('total')])
    .where('qr_code_id', 'in', codeIds(db, codes))
    .where('dimension', '=', ALL_SCANS)
    .where('day', '>=', first)
    .where('day', '<=', last)
    .groupBy('day')
    .execute()
  return new Map(rows.map((r) => [r.day, Number(r.total)]))
}

/**
 * Distinct visitors of one code whose latest scan is on `from` or later (v1's last-seen
 * histogram): for a window that ends today, exactly the visitors with a scan in it.
 */
export async function countVisitorsSince(db: Db, qrCodeId: string, from: string): Promise<number> {
  const row = await db
    .selectFrom('scan_visitor_days')
    .select((eb) => eb.fn.sum<number>('count').as('n'))
    .where('qr_code_id', '=', qrCodeId)
    .where('day', '>=', from)
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

/** Lifetime counts per dimension and value of one code (for `period=all`). */
export async function lifetimeByValue(
  db: Db,
  qrCodeId: string,
  dimensions: readonly string[],
): Promise<{ dimension: string; value: string; count: number }[]> {
  const rows = await db
    .selectFrom('scan_totals')
    .select(['dimension', 'value', 'count'])
    .where('qr_code_id', '=', qrCodeId)
    .where('dimension', 'in', dimensions)
    .execute()
  return rows.map((r) => ({ dimension: r.dimension, value: r.value, count: Number(r.count) }))
}

/**
 * Distinct visitors of one code from `fromMs` until now, exactly, for a window in any zone that
 * ends today: those last seen on a whole UTC day of it (v1's histogram), plus those with a scan
 * in its partial first UTC day who were not seen after it (that day's scans, nothing more).
 */
export async function countVisitorsUntilNow(db: Db, qrCodeId: string, fromMs: number): Promise<number> {
  const firstWhole = Math.ceil(fromMs / 86_400_000) * 86_400_000
  const day = iso(firstWhole).slice(0, 10)
  const since = await countVisitorsSince(db, qrCodeId, day)
  if (firstWhole === fromMs) return since
  // The partial day's visitors with a scan from fromMs on and no later visit day: that day's
  // rows of scan_visitor_dates, no scan read and no lookup per visitor.
  const row = await db
    .selectFrom('scan_visitor_dates')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('qr_code_id', '=', qrCodeId)
    .where('day', '=', iso(fromMs).slice(0, 10))
    .where('last_quarter', '>=', quarter(fromMs))
    .where('next_day', '=', '')
    .executeTakeFirst()
  return since + Number(row?.n ?? 0)
}

/**
 * A split window's partial days as scan_visitor_dates can answer them: the end of one UTC day
 * (from a quarter hour to midnight) and the start of a later one (midnight to a quarter hour),
 * its whole days in between. Null when an edge lies inside a UTC day, touching neither
 * midnight (only windows that are not whole local days, such as the migration test's).
 */
function edgeDays(
  split: Split,
): { tail?: { day: string; from: number }; head?: { day: string; to: number } } | null {
  const out: { tail?: { day: string; from: number }; head?: { day: string; to: number } } = {}
  for (const [from, to] of split.edges) {
    const midnight = Math.floor(from / 86_400_000) * 86_400_000
    const next = midnight + 86_400_000
    if (from === midnight) {
      if (out.head) return null
      out.head = { day: iso(midnight).slice(0, 10), to: quarter(to) }
    } else if (to === next) {
      if (out.tail) return null
      out.tail = { day: iso(midnight).slice(0, 10), from: quarter(from) }
    } else if (to > next) {
      if (out.tail || out.head) return null
      out.tail = { day: iso(midnight).slice(0, 10), from: quarter(from) }
      out.head = { day: iso(next).slice(0, 10), to: quarter(to) }
    } else return null
  }
  return out
}

/**
 * Visitors of one code at a window's partial days who have no visit day in its whole days
 * [a, b], from scan_visitor_dates' quarters and links (DESIGN §16): at the end of day x, the
 * rows of x with a scan from its start on and a next visit day after b (or none); at the start
 * of day y, the rows of y with a scan before its end and a previous visit day before a; less
 * those counted at both (next visit after x on y itself, with a scan before the end).
 */
async function countEdgeVisitors(
  db: Db,
  qrCodeId: string,
  edges: { tail?: { day: string; from: number }; head?: { day: string; to: number } },
  days: Split['days'],
): Promise<number> {
  let total = 0
  const { tail, head } = edges
  if (tail) {
    // One pass over day x's rows: those counted at x, and of them the ones whose next visit,
    // on y, has a scan before the window's end (counted at y too). The link is looked up only
    // for rows whose next visit day is y, not by reading day y's rows a second time.
    const last = days?.last ?? tail.day
    const atBoth = head
      ? sql<number>`sum(case when t.next_day = ${head.day} and exists (
          select 1 from scan_visitor_dates h
          where h.qr_code_id = t.qr_code_id and h.day = t.next_day and h.visitor_id = t.visitor_id
            and h.first_quarter < ${head.to}) then 1 else 0 end)`
      : sql<number>`0`
    const row = await db
      .selectFrom('scan_visitor_dates as t')
      .select([
        sql<number>`sum(case when t.next_day = '' or t.next_day > ${last} then 1 else 0 end)`.as('atTail'),
        atBoth.as('atBoth'),
      ])
      .where('t.qr_code_id', '=', qrCodeId)
      .where('t.day', '=', tail.day)
      .where('t.last_quarter', '>=', tail.from)
      .executeTakeFirst()
    total += Number(row?.atTail ?? 0) - Number(row?.atBoth ?? 0)
  }
  if (head) {
    const first = days?.first ?? head.day
    const row = await db
      .selectFrom('scan_visitor_dates')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('qr_code_id', '=', qrCodeId)
      .where('day', '=', head.day)
      .where('first_quarter', '<', head.to)
      .where('previous_day', '<', first)
      .executeTakeFirst()
    total += Number(row?.n ?? 0)
  }
  return total
}

/**
 * Distinct visitors of one code in a split window, exactly, without reading one row per
 * visitor: on its whole UTC days [a, b], those whose visit on a day d of it follows none or one
 * before a (two rows of scan_visitor_gaps per day, DESIGN §16); at its partial days, the
 * visitors with no visit day in [a, b], from those days' rows of scan_visitor_dates (or, for an
 * edge inside a UTC day, from its scans, one lookup each by visitor).
 */
export async function countCodeVisitors(db: Db, qrCodeId: string, split: Split): Promise<number> {
  let total = 0
  const { days } = split
  if (days) {
    const dates: string[] = []
    for (let ms = Date.parse(days.first); ; ms += 86_400_000) {
      const date = iso(ms).slice(0, 10)
      if (date > days.last) break
      dates.push(date)
    }
    const row = await sql<{ n: number | string | null }>`
      with window_days (day) as (values ${sql.join(dates.map((d) => sql`(${d})`))})
      select sum(
        coalesce((select g.visitors from scan_visitor_gaps g
          where g.qr_code_id = ${qrCodeId} and g.day = window_days.day and g.previous_day = ''), 0)
        + coalesce((select g.visitors from scan_visitor_gaps g
          where g.qr_code_id = ${qrCodeId} and g.day = window_days.day
            and g.previous_day > '' and g.previous_day < ${days.first}
          order by g.previous_day desc limit 1), 0)
      ) as n
      from window_days
    `.execute(db)
    total += Number(row.rows[0]?.n ?? 0)
  }
  if (split.edges.length === 0) return total
  const partial = edgeDays(split)
  if (partial) return total + (await countEdgeVisitors(db, qrCodeId, partial, days))
  type VisitorRow = { visitor_id: string }
  const parts = split.edges.map(
    ([from, to]) =>
      db
        .selectFrom('scans')
        .select('visitor_id')
        .where('qr_code_id', '=', qrCodeId)
        .where('scanned_at', '>=', iso(from))
        .where('scanned_at', '<', iso(to)) as SelectQueryBuilder<Database, 'scans', VisitorRow>,
  )
  const [first, ...rest] = parts as [SelectQueryBuilder<Database, 'scans', VisitorRow>]
  const edges = rest.reduce((union, part) => union.union(part), first)
  let query = db
    .selectFrom(edges.as('e'))
    .select((eb) => eb.fn.count<number>('e.visitor_id').distinct().as('n'))
  if (days)
    query = query.where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('scan_visitor_dates as d')
            .select('d.visitor_id')
            .where('d.qr_code_id', '=', qrCodeId)
            .whereRef('d.visitor_id', '=', 'e.visitor_id')
            .where('d.day', '>=', days.first)
            .where('d.day', '<=', days.last),
        ),
      ),
    )
  const row = await query.executeTakeFirst()
  return total + Number(row?.n ?? 0)
}
