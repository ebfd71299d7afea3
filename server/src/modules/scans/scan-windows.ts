import type { Db, Dialect } from '../../db/database.js'
import type { ScanQuartersTable, ScanVisitorDatesTable } from '../../db/schema.js'
import { BatchStatement } from './batch-statement.js'
import type { ScanEvent } from './scan-event.js'
import { ALL_SCANS, UNKNOWN } from './scan-rollup.js'
import { addToVisitorGaps } from './visitor-gaps.js'

/** A 15-minute UTC bucket: every time zone's midnight falls on one (DESIGN §16). */
export const QUARTER_MS = 900_000
export const quarterOf = (ms: number) => Math.floor(ms / QUARTER_MS)

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The rows one batch adds to the window rollups, in key order (so writers lock rows alike). */
export function windowRows(events: ScanEvent[]): {
  quarters: ScanQuartersTable[]
  visitorDates: ScanVisitorDatesTable[]
} {
  const counts = new Map<string, ScanQuartersTable>()
  const dates = new Map<string, ScanVisitorDatesTable>()
  const bump = (qr_code_id: string, dimension: string, quarter: number, value: string) => {
    const key = `${qr_code_id}\0${dimension}\0${quarter}\0${value}`
    const row = counts.get(key)
    if (row) row.count++
    else counts.set(key, { qr_code_id, dimension, quarter, value, count: 1 })
  }
  for (const e of events) {
    const quarter = quarterOf(Date.parse(e.scannedAt))
    bump(e.qrCodeId, ALL_SCANS, quarter, '')
    bump(e.qrCodeId, 'device', quarter, e.device)
    bump(e.qrCodeId, 'browser', quarter, e.browser ?? UNKNOWN)
    bump(e.qrCodeId, 'os', quarter, e.os ?? UNKNOWN)
    bump(e.qrCodeId, 'country', quarter, e.country ?? UNKNOWN)
    bump(e.qrCodeId, 'city', quarter, e.city ?? UNKNOWN)
    bump(e.qrCodeId, 'referrer', quarter, e.referrer ?? UNKNOWN)
    const day = e.scannedAt.slice(0, 10)
    dates.set(`${e.qrCodeId}\0${day}\0${e.visitorId}`, {
      qr_code_id: e.qrCodeId,
      day,
      visitor_id: e.visitorId,
    })
  }
  const quarters = [...counts.values()].sort(
    (a, b) =>
      compare(a.qr_code_id, b.qr_code_id) ||
      compare(a.dimension, b.dimension) ||
      a.quarter - b.quarter ||
      compare(a.value, b.value),
  )
  const visitorDates = [...dates.values()].sort(
    (a, b) =>
      compare(a.qr_code_id, b.qr_code_id) || compare(a.day, b.day) || compare(a.visitor_id, b.visitor_id),
  )
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
  ['qr_code_id', 'day', 'visitor_id'],
  (db, rows) =>
    db
      .insertInto('scan_visitor_dates')
      .values(rows)
      .onConflict((oc) => oc.columns(['qr_code_id', 'day', 'visitor_id']).doNothing())
      .returning(['qr_code_id', 'day', 'visitor_id']),
)

/**
 * Adds a batch of scans to the rollups windows in any zone read (DESIGN §16), inside the
 * batch's transaction: quarter-hour counts per dimension, visitors per UTC day, and the visit
 * days each new one follows (see `addToVisitorGaps` for `lastDays`).
 */
export async function addToWindowRollups(
  db: Db,
  dialect: Dialect,
  events: ScanEvent[],
  lastDays: ReadonlyMap<string, string> = new Map(),
): Promise<void> {
  if (events.length === 0) return
  const { quarters, visitorDates } = windowRows(events)
  await addQuarterRows.run(db, dialect, quarters)
  const added = await addVisitorDateRows.run<ScanVisitorDatesTable>(db, dialect, visitorDates)
  await addToVisitorGaps(db, dialect, added, lastDays)
}
