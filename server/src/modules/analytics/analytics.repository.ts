import type { NameCount } from '@qrctl/contract'
import { sql } from 'kysely'
import type { Db, Dialect } from '../../db/database.js'
import { ALL_SCANS } from '../scans/scan-rollup.js'

/** UTC days as `YYYY-MM-DD`; `from` null means since the first scan. */
export interface DayRange {
  from: string | null
  to: string
}

/** Scans per day (only days with scans). */
export async function countScansByDay(
  db: Db,
  qrCodeId: string,
  range: DayRange,
): Promise<{ day: string; count: number }[]> {
  let query = db
    .selectFrom('scan_daily')
    .select(['day', 'count'])
    .where('qr_code_id', '=', qrCodeId)
    .where('dimension', '=', ALL_SCANS)
    .where('day', '<=', range.to)
  if (range.from) query = query.where('day', '>=', range.from)
  const rows = await query.orderBy('day').execute()
  return rows.map((r) => ({ day: r.day, count: Number(r.count) }))
}

/** Every scan of the code, from the lifetime totals (equals qr_codes.total_scans). */
export async function countAllScans(db: Db, qrCodeId: string): Promise<number> {
  const row = await db
    .selectFrom('scan_totals')
    .select('count')
    .where('qr_code_id', '=', qrCodeId)
    .where('dimension', '=', ALL_SCANS)
    .executeTakeFirst()
  return Number(row?.count ?? 0)
}

/**
 * The most frequent values of one dimension, count desc then name asc. A window sums the
 * daily rollup (days × values rows); `from` null reads the lifetime totals (one row a value).
 */
/**
 * Names sort by code point on both dialects, as SQLite does: PostgreSQL would otherwise use
 * the database's locale ("apple" before "Unknown" there, after it here).
 */
const byName = (dialect: Dialect) => (dialect === 'postgres' ? sql`value collate "C"` : sql`value`)

export async function topValues(
  db: Db,
  dialect: Dialect,
  qrCodeId: string,
  dimension: string,
  range: DayRange,
  limit: number,
): Promise<NameCount[]> {
  if (range.from === null) {
    const rows = await db
      .selectFrom('scan_totals')
      .select(['value', 'count'])
      .where('qr_code_id', '=', qrCodeId)
      .where('dimension', '=', dimension)
      .orderBy('count', 'desc')
      .orderBy(byName(dialect))
      .limit(limit)
      .execute()
    return rows.map((r) => ({ name: r.value, count: Number(r.count) }))
  }
  const rows = await db
    .selectFrom('scan_daily')
    .select((eb) => ['value', eb.fn.sum<number>('count').as('total')])
    .where('qr_code_id', '=', qrCodeId)
    .where('dimension', '=', dimension)
    .where('day', '>=', range.from)
    .where('day', '<=', range.to)
    .groupBy('value')
    .orderBy('total', 'desc')
    .orderBy(byName(dialect))
    .limit(limit)
    .execute()
  return rows.map((r) => ({ name: r.value, count: Number(r.total) }))
}

/**
 * Distinct visitors with a scan in the range: each visitor is counted on the day of their
 * latest scan, so for a window that ends today this is a sum over its days.
 */
export async function countVisitors(db: Db, qrCodeId: string, range: DayRange): Promise<number> {
  let query = db
    .selectFrom('scan_visitor_days')
    .select((eb) => eb.fn.sum<number>('count').as('total'))
    .where('qr_code_id', '=', qrCodeId)
    .where('day', '<=', range.to)
  if (range.from) query = query.where('day', '>=', range.from)
  const row = await query.executeTakeFirst()
  return Number(row?.total ?? 0)
}
