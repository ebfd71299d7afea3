import { CompiledQuery, sql } from 'kysely'
import type { Db, Dialect } from '../../db/database.js'
import type { ScanQuartersTable, ScanRunningTable, ScanVisitorDatesTable } from '../../db/schema.js'
import { BatchStatement, statementSizes, yieldToRequests } from './batch-statement.js'
import type { ScanEvent } from './scan-event.js'
import { inKeyOrder, newTally, STORED, tallyScan } from './scan-rollup.js'
import { addToVisitorGaps, linkKnownVisits, type VisitLink } from './visitor-gaps.js'

/** A 15-minute UTC bucket: every time zone's midnight falls on one (DESIGN §16). */
export const QUARTER_MS = 900_000
export const quarterOf = (ms: number) => Math.floor(ms / QUARTER_MS)

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

interface CodeWindows {
  /** quarter → one Map (value → count) per STORED dimension */
  quarters: Map<number, Map<string, number>[]>
  /** day → visitor id → the visitor's row of that day */
  days: Map<string, Map<string, ScanVisitorDatesTable>>
}

/**
 * The rows one batch adds to the window rollups, in key order (so writers lock rows alike).
 * Tallied per code, quarter, dimension and value in nested maps, as `rollUp` does, rather than
 * under a key string built per scan and dimension (eight a scan), then sorted a level at a
 * time: 2.7 → 1.1 µs a scan for 1,500 of the redirect benchmark's scans, the same rows.
 */
export function windowRows(events: ScanEvent[]): {
  quarters: ScanQuartersTable[]
  visitorDates: ScanVisitorDatesTable[]
} {
  const codes = new Map<string, CodeWindows>()
  for (const e of events) {
    let code = codes.get(e.qrCodeId)
    if (!code) {
      code = { quarters: new Map(), days: new Map() }
      codes.set(e.qrCodeId, code)
    }
    const quarter = quarterOf(Date.parse(e.scannedAt))
    let counts = code.quarters.get(quarter)
    if (!counts) {
      counts = newTally()
      code.quarters.set(quarter, counts)
    }
    tallyScan(counts, e)
    const day = e.scannedAt.slice(0, 10)
    let visitors = code.days.get(day)
    if (!visitors) {
      visitors = new Map()
      code.days.set(day, visitors)
    }
    const date = visitors.get(e.visitorId)
    if (date) {
      if (quarter < date.first_quarter) date.first_quarter = quarter
      if (quarter > date.last_quarter) date.last_quarter = quarter
    } else
      visitors.set(e.visitorId, {
        qr_code_id: e.qrCodeId,
        day,
        visitor_id: e.visitorId,
        first_quarter: quarter,
        last_quarter: quarter,
        previous_day: '',
        next_day: '',
      })
  }
  const quarters: ScanQuartersTable[] = []
  const visitorDates: ScanVisitorDatesTable[] = []
  for (const [qr_code_id, code] of inKeyOrder(codes)) {
    const inOrder = inKeyOrder(code.quarters)
    STORED.forEach((dimension, d) => {
      for (const [quarter, tally] of inOrder)
        for (const [value, count] of inKeyOrder(tally[d] as Map<string, number>))
          quarters.push({ qr_code_id, dimension, quarter, value, count })
    })
    for (const [, visitors] of inKeyOrder(code.days))
      for (const [, row] of inKeyOrder(visitors)) visitorDates.push(row)
  }
  return { quarters, visitorDates }
}

const addQuarterRows = new BatchStatement<ScanQuartersTable>(
  ['qr_code_id', 'dimension', 'quarter', 'value', 'count'],
  (db, rows) =>
    db
      .insertInto('scan_quarters')
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(['qr_code_id', 'dimension', 'quarter', 'value'])
          .doUpdateSet((eb) => ({ count: eb('scan_quarters.count', '+', eb.ref('excluded.count')) })),
      ),
)

const addVisitorDateRows = new BatchStatement<ScanVisitorDatesTable>(
  ['qr_code_id', 'day', 'visitor_id', 'first_quarter', 'last_quarter', 'previous_day', 'next_day'],
  (db, rows) =>
    db
      .insertInto('scan_visitor_dates')
      .values(rows)
      .onConflict((oc) => oc.columns(['qr_code_id', 'day', 'visitor_id']).doNothing())
      .returning(['qr_code_id', 'day', 'visitor_id']),
)

/** A batch's count of a value in a quarter hour, to add to scan_running. */
type RunningCount = Omit<ScanRunningTable, 'running'>

type ValueOf = Pick<ScanRunningTable, 'qr_code_id' | 'dimension' | 'value'>
const sameValue = (a: ValueOf, b: ValueOf) =>
  a.qr_code_id === b.qr_code_id && a.dimension === b.dimension && a.value === b.value

/** `addRunningCounts`'s SQL per dialect and number of rows, compiled by Kysely once. */
const runningCountsSql = new Map<string, string>()

/**
 * Adds one statement's rows (in key order) to scan_running with their running totals, if no
 * value of theirs has a row stored after the quarter added to, as live scans nearly always
 * find: each total is then the value's latest stored one plus the statement's counts of it up
 * to that quarter (summed here). If one has (history imported before stored scans), it writes
 * nothing and answers false, for the general recompute. One seek per row tells both: the
 * value's latest stored row, its total or -1 if it lies after the row's quarter. (A value's
 * rows that an earlier statement of the batch wrote are its latest stored ones here.) Rows are
 * written in the order given, so writers lock them in key order.
 *
 * Its rows are all written or none, so the number written is the answer: a BatchStatement
 * answers rows, and RETURNING each row cost about 1 µs a scan more (SQLite CPU, measured with
 * this statement less the test). The seeks are made once per row in a materialized CTE (with
 * the test inlined, both dialects ran each seek twice), all before the first row is written.
 */
async function addRunningCounts(db: Db, dialect: Dialect, rows: RunningCount[]): Promise<boolean> {
  const parameters: unknown[] = []
  let running = 0
  let previous: RunningCount | undefined
  for (const r of rows) {
    running = previous && sameValue(previous, r) ? running + r.count : r.count
    previous = r
    parameters.push(r.qr_code_id, r.dimension, r.value, r.quarter, r.count, running)
  }
  const key = `${dialect}:${rows.length}`
  let text = runningCountsSql.get(key)
  if (text === undefined) {
    const values = sql.join(rows.map(() => sql`(${''}, ${''}, ${''}, ${0}, ${0}, ${0})`))
    text = sql`
      with k as materialized (
        select v.column1 as code, v.column2 as dimension, v.column3 as value,
          cast(v.column4 as integer) as quarter, cast(v.column5 as bigint) as count,
          cast(v.column6 as bigint) as running,
          coalesce((select case when p.quarter <= cast(v.column4 as integer) then p.running else -1 end
            from scan_running p
            where p.qr_code_id = v.column1 and p.dimension = v.column2 and p.value = v.column3
            order by p.quarter desc limit 1), 0) as base
        from (values ${values}) as v
      )
      insert into scan_running (qr_code_id, dimension, value, quarter, count, running)
      select code, dimension, value, quarter, count, base + running from k
      where (select min(base) from k) >= 0
      on conflict (qr_code_id, dimension, value, quarter) do update set
        count = scan_running.count + excluded.count, running = excluded.running`.compile(db).sql
    runningCountsSql.set(key, text)
  }
  const result = await db.executeQuery(CompiledQuery.raw(text, parameters))
  return Number(result.numAffectedRows) === rows.length
}

/** Quarter-hour counts alone, in scan_running, where `addRunningCounts` could not write them. */
const addRunningRows = new BatchStatement<ScanRunningTable>(
  ['qr_code_id', 'dimension', 'value', 'quarter', 'count', 'running'],
  (db, rows) =>
    db
      .insertInto('scan_running')
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(['qr_code_id', 'dimension', 'value', 'quarter'])
          .doUpdateSet((eb) => ({ count: eb('scan_running.count', '+', eb.ref('excluded.count')) })),
      ),
)

/** A value of a code whose running totals are stale from `quarter` on. */
type RunningFrom = Pick<ScanRunningTable, 'qr_code_id' | 'dimension' | 'value' | 'quarter'>

/**
 * Sets the running totals of each value's rows from `quarter` on: the last total before it plus
 * the counts since, in quarter order. Live scans land in the latest quarter, so this rewrites
 * the row or two they added; history imported before stored scans rewrites every later row of
 * the values it touches.
 */
const setRunningTotals = new BatchStatement<RunningFrom>(
  ['qr_code_id', 'dimension', 'value', 'quarter'],
  (db, rows) => {
    const values = sql.join(rows.map((r) => sql`(${r.qr_code_id}, ${r.dimension}, ${r.value}, ${r.quarter})`))
    // An insert of rows that all exist, so each conflict sets the row's running total: the
    // rows come from the select, seeked by key. (SQLite ran the same as UPDATE … FROM by
    // scanning the whole table.)
    const query = sql`
      insert into scan_running (qr_code_id, dimension, value, quarter, count, running)
      select r.qr_code_id, r.dimension, r.value, r.quarter, r.count,
        k.base + sum(r.count) over (
          partition by r.qr_code_id, r.dimension, r.value order by r.quarter rows unbounded preceding
        )
      from (
        select v.column1 as code, v.column2 as dimension, v.column3 as value,
          cast(v.column4 as integer) as since,
          coalesce((select p.running from scan_running p
            where p.qr_code_id = v.column1 and p.dimension = v.column2 and p.value = v.column3
              and p.quarter < cast(v.column4 as integer)
            order by p.quarter desc limit 1), 0) as base
        from (values ${values}) as v
      ) k
      join scan_running r on r.qr_code_id = k.code and r.dimension = k.dimension
        and r.value = k.value and r.quarter >= k.since
      where true
      on conflict (qr_code_id, dimension, value, quarter) do update set running = excluded.running`
    return { compile: () => query.compile(db) }
  },
)

/**
 * Adds quarter-hour counts to scan_running and brings the running totals after them up to date.
 * Each statement's rows go in with their totals when nothing of their values lies later
 * (`addRunningCounts`); a statement's rows that meet later stored ones are added as counts
 * alone, and their values' totals set again from that quarter on once the batch's rows are in
 * (`setRunningTotals`). Live batches take one statement per 64 rows instead of two: this
 * function alone, live batches of 500 after a year of scans, 10.6 → 5.3 µs of CPU a scan on
 * SQLite and 48 → 25 µs of wall time on PostgreSQL (docs/performance.md). History imported
 * before stored scans costs what it did (the recompute is most of it).
 */
export async function addToRunningTotals(db: Db, dialect: Dialect, quarters: ScanQuartersTable[]) {
  // Copied and sorted in place: spreading each row into a new object first cost 0.3 µs a scan.
  const rows = [...quarters].sort(
    (a, b) =>
      compare(a.qr_code_id, b.qr_code_id) ||
      compare(a.dimension, b.dimension) ||
      compare(a.value, b.value) ||
      a.quarter - b.quarter,
  )
  const stale: RunningFrom[] = []
  let offset = 0
  for (const size of statementSizes(rows.length)) {
    if (offset > 0) await yieldToRequests()
    const part = rows.slice(offset, offset + size)
    offset += size
    if (await addRunningCounts(db, dialect, part)) continue
    await addRunningRows.run(
      db,
      dialect,
      part.map((r) => ({ ...r, running: 0 })),
    )
    for (const row of part) {
      const last = stale[stale.length - 1]
      if (last && sameValue(last, row)) continue
      stale.push({
        qr_code_id: row.qr_code_id,
        dimension: row.dimension,
        value: row.value,
        quarter: row.quarter,
      })
    }
  }
  await setRunningTotals.run(db, dialect, stale)
}

/**
 * A change to stored rows of scan_visitor_dates: the day's quarters widened to include
 * `first_quarter`..`last_quarter` (null: no scan), the links set where not null.
 */
type VisitUpdate = VisitLink & { first_quarter: number | null; last_quarter: number | null }

const updateVisitorDateRows = new BatchStatement<VisitUpdate>(
  ['qr_code_id', 'day', 'visitor_id', 'first_quarter', 'last_quarter', 'previous_day', 'next_day'],
  (db, rows) => {
    // An UPDATE from a VALUES list (both dialects name its columns column1 …): stored rows are
    // changed, never inserted. Parameters arrive untyped on PostgreSQL, hence the casts.
    // Only rows that would change are written: most are a returning visitor's day again, in a
    // quarter hour already stored, and rewriting such a row unchanged still dirtied its page
    // (SQLite) or left a dead tuple (PostgreSQL). 1.9 -> 1.1 µs of SQLite CPU a scan for the
    // redirect benchmark's traffic in-process (docs/performance.md, #14.4).
    const values = sql.join(
      rows.map(
        (r) =>
          sql`(${r.qr_code_id}, ${r.day}, ${r.visitor_id}, ${r.first_quarter}, ${r.last_quarter}, ${r.previous_day}, ${r.next_day})`,
      ),
    )
    const first = sql`cast(v.column4 as integer)`
    const last = sql`cast(v.column5 as integer)`
    const query = sql`
      update scan_visitor_dates set
        first_quarter = case when v.column4 is not null and ${first} < scan_visitor_dates.first_quarter
          then ${first} else scan_visitor_dates.first_quarter end,
        last_quarter = case when v.column5 is not null and ${last} > scan_visitor_dates.last_quarter
          then ${last} else scan_visitor_dates.last_quarter end,
        previous_day = coalesce(cast(v.column6 as text), scan_visitor_dates.previous_day),
        next_day = coalesce(cast(v.column7 as text), scan_visitor_dates.next_day)
      from (values ${values}) as v
      where scan_visitor_dates.qr_code_id = v.column1
        and scan_visitor_dates.day = v.column2
        and scan_visitor_dates.visitor_id = v.column3
        and (${first} < scan_visitor_dates.first_quarter or ${last} > scan_visitor_dates.last_quarter
          or cast(v.column6 as text) <> scan_visitor_dates.previous_day
          or cast(v.column7 as text) <> scan_visitor_dates.next_day)`
    return { compile: () => query.compile(db) }
  },
)

/**
 * Adds a batch of scans to the rollups windows in any zone read (DESIGN §16), inside the
 * batch's transaction: quarter-hour counts per dimension (and their running totals), visitors
 * per UTC day (with their first and last quarter hour that day and the visit days before and
 * after), and the visit days each new one follows (see `addToVisitorGaps` for `lastDays`).
 * Visitor-day rows `unchanged` says the database holds as they are already are not written.
 * Answers the batch's visitor-day rows (all of them).
 */
export async function addToWindowRollups(
  db: Db,
  dialect: Dialect,
  events: ScanEvent[],
  lastDays: ReadonlyMap<string, string> = new Map(),
  unchanged: (row: ScanVisitorDatesTable) => boolean = () => false,
): Promise<ScanVisitorDatesTable[]> {
  if (events.length === 0) return []
  const { quarters, visitorDates: all } = windowRows(events)
  const visitorDates = all.filter((row) => !unchanged(row))
  await addQuarterRows.run(db, dialect, quarters)
  await addToRunningTotals(db, dialect, quarters)
  linkKnownVisits(visitorDates, lastDays)
  const added = await addVisitorDateRows.run<
    Pick<ScanVisitorDatesTable, 'qr_code_id' | 'day' | 'visitor_id'>
  >(db, dialect, visitorDates)
  const links = await addToVisitorGaps(db, dialect, added, lastDays)
  // Rows the batch did not insert were there: their quarters may widen. And the links the
  // visitor gaps found (stored days beside new ones, new days among stored ones).
  const updates = new Map<string, VisitUpdate>()
  const keyOf = (r: { qr_code_id: string; day: string; visitor_id: string }) =>
    `${r.qr_code_id}\0${r.day}\0${r.visitor_id}`
  const inserted = new Set(added.map(keyOf))
  for (const row of visitorDates)
    if (!inserted.has(keyOf(row))) updates.set(keyOf(row), { ...row, previous_day: null, next_day: null })
  for (const link of links) {
    const update = updates.get(keyOf(link))
    if (!update) updates.set(keyOf(link), { ...link, first_quarter: null, last_quarter: null })
    else {
      if (link.previous_day !== null) update.previous_day = link.previous_day
      if (link.next_day !== null) update.next_day = link.next_day
    }
  }
  await updateVisitorDateRows.run(
    db,
    dialect,
    [...updates.values()].sort(
      (a, b) =>
        compare(a.qr_code_id, b.qr_code_id) || compare(a.day, b.day) || compare(a.visitor_id, b.visitor_id),
    ),
  )
  return all
}
