import type { Db } from '../../db/database.js'
import { type CodeSet, codeIds } from './window.repository.js'

export interface ExportRow {
  id: number | string
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
 * One page of the code set's scans in [from, to) (ISO instants), in time order, after the
 * last (scanned_at, id) sent: keyset paging over scans_time_idx, so every page costs the same
 * and nothing is held open between pages. Scans of deleted codes are left out.
 */
export async function scansPage(
  db: Db,
  codes: CodeSet,
  range: { from: string; to: string },
  after: { at: string; id: number | string } | null,
  limit: number,
): Promise<ExportRow[]> {
  let query = db
    .selectFrom('scans')
    .select([
      'id',
      'scanned_at',
      'qr_code_id',
      'device',
      'browser',
      'os',
      'country',
      'city',
      'referrer',
      'visitor_id',
    ])
    .where('qr_code_id', 'in', codeIds(db, codes))
    .where('scanned_at', '>=', range.from)
    .where('scanned_at', '<', range.to)
  // The plain `>=` lets the index range start at the last row sent; the OR alone made every
  // page walk the index from the window's start again (quadratic in the rows).
  if (after)
    query = query
      .where('scanned_at', '>=', after.at)
      .where((eb) =>
        eb.or([
          eb('scanned_at', '>', after.at),
          eb.and([eb('scanned_at', '=', after.at), eb('id', '>', after.id as number)]),
        ]),
      )
  return query.orderBy('scanned_at').orderBy('id').limit(limit).execute()
}
