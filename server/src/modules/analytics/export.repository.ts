import type { Db, Dialect } from '../../db/database.js'
import { type CodeSet, codeIds } from './window.repository.js'

export interface ExportRow {
  /** Read on SQLite only (its keyset pages resume after it). */
  id?: number | string
  scanned_at: string
  qr_code_id: string
  device: string
  browser: string | null
  os: string | null
  country: string | null
  city: string | null
  referrer: string | null
  visitor_id: string
}

/** Short code and name of every code a code set covers (live codes only), by id. */
export async function exportCodes(
  db: Db,
  accountId: string,
  codes: CodeSet,
): Promise<Map<string, { shortCode: string | null; name: string }>> {
  let query = db
    .selectFrom('qr_codes')
    .select(['id', 'short_code', 'name'])
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
  if ('ids' in codes || codes.tags || codes.within) query = query.where('id', 'in', codeIds(db, codes))
  const rows = await query.execute()
  return new Map(rows.map((r) => [r.id, { shortCode: r.short_code, name: r.name }]))
}

/**
 * Rows per cursor fetch on PostgreSQL, and so per chunk of the response (about 80 kB of CSV).
 * Measured on a million rows: 500 and 2,000 cost the same CPU per row, but at 2,000 the RSS grew
 * by 41 MB instead of 3, at 1,000 by 22 MB (likely V8 promoting what lives across each fetch, as
 * with the keyset pages below); 250 cost more CPU per row.
 */
const CURSOR_BATCH = 500

/**
 * Rows per keyset page on SQLite: each page is read synchronously, so it blocks the event loop
 * (and the redirects it serves) while read; small pages keep each stall short.
 */
const SQLITE_PAGE = 500

const COLUMNS = [
  'scanned_at',
  'qr_code_id',
  'device',
  'browser',
  'os',
  'country',
  'city',
  'referrer',
  'visitor_id',
] as const

/** The code set's scans in [from, to) (ISO instants), in time order; scans of deleted codes left out. */
function scansIn(db: Db, codes: CodeSet, range: { from: string; to: string }) {
  return db
    .selectFrom('scans')
    .where('qr_code_id', 'in', codeIds(db, codes))
    .where('scanned_at', '>=', range.from)
    .where('scanned_at', '<', range.to)
    .orderBy('scanned_at')
    .orderBy('id')
}

/**
 * The rows of an export, a batch at a time, read only as fast as they are consumed. Batches,
 * not rows: a row-by-row async iterator costs a promise and a microtask per row, a large share
 * of the export's CPU at a million rows (docs/performance.md).
 *
 * PostgreSQL: one query through a cursor, CURSOR_BATCH rows per fetch. Keyset pages of the same
 * query measured +81 MB of RSS over a million rows (a new result per page, each promoted by V8
 * while the next one was awaited); the cursor measured +5 MB. It holds one pooled connection for
 * the length of the download. SQLite: keyset pages, since its one connection cannot be held open
 * while a client downloads.
 */
export function exportBatches(
  db: Db,
  dialect: Dialect,
  codes: CodeSet,
  range: { from: string; to: string },
): AsyncIterable<ExportRow[]> {
  return dialect === 'postgres' ? cursorBatches(db, codes, range) : keysetPages(db, codes, range)
}

/**
 * Kysely's `.stream()` hands out one row per `await`; its executor underneath yields each
 * cursor fetch whole. Returning early (the client left) closes the cursor and frees the
 * connection in the executor's `finally`.
 */
async function* cursorBatches(db: Db, codes: CodeSet, range: { from: string; to: string }) {
  const query = scansIn(db, codes, range).select(COLUMNS).compile()
  for await (const { rows } of db.getExecutor().stream(query, CURSOR_BATCH)) yield rows
}

/**
 * Pages after the last (scanned_at, id) sent: keyset paging over scans_time_idx, so every page
 * costs the same and nothing is held open between pages.
 */
async function* keysetPages(db: Db, codes: CodeSet, range: { from: string; to: string }) {
  let after: { at: string; id: number | string } | null = null
  for (;;) {
    // The index range starts at the last row sent: its instant is the page's one lower bound.
    // The OR alone made every page walk the index from the window's start again (quadratic in
    // the rows); with the window's start kept beside it as a second lower bound, SQLite took
    // about 3 µs a row more (a million rows, docs/performance.md).
    let query = scansIn(db, codes, { from: after?.at ?? range.from, to: range.to }).select([...COLUMNS, 'id'])
    if (after) {
      const { at, id } = after
      query = query.where((eb) =>
        eb.or([eb('scanned_at', '>', at), eb.and([eb('scanned_at', '=', at), eb('id', '>', id as number)])]),
      )
    }
    const rows: ExportRow[] = await query.limit(SQLITE_PAGE).execute()
    if (rows.length > 0) yield rows
    const last = rows[rows.length - 1]
    if (!last || rows.length < SQLITE_PAGE) return
    after = { at: last.scanned_at, id: last.id as number }
  }
}
