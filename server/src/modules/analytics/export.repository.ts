import type { Db } from '../../db/database.js'
import type { CodeSet } from './window.repository.js'

export interface ExportRow {
  id: number | string
  scanned_at: string
  qr_code_id: string
  short_code: string | null
  name: string
  device: string
  browser: string | null
  os: string | null
  country: string | null
  city: string | null
  referrer: string | null
  visitor_id: string
}

/**
 * One page of an account's scans in [from, to) (ISO instants), in time order, after the
 * last (scanned_at, id) sent: keyset paging over scans_time_idx, so every page costs the same
 * and nothing is held open between pages. Scans of deleted codes are left out.
 */
export async function scansPage(
  db: Db,
  accountId: string,
  codes: CodeSet,
  range: { from: string; to: string },
  after: { at: string; id: number | string } | null,
  limit: number,
): Promise<ExportRow[]> {
  let query = db
    .selectFrom('scans as s')
    .innerJoin('qr_codes as c', 'c.id', 's.qr_code_id')
    .select([
      's.id',
      's.scanned_at',
      's.qr_code_id',
      'c.short_code',
      'c.name',
      's.device',
      's.browser',
      's.os',
      's.country',
      's.city',
      's.referrer',
      's.visitor_id',
    ])
    .where('c.account_id', '=', accountId)
    .where('c.deleted_at', 'is', null)
    .where('s.scanned_at', '>=', range.from)
    .where('s.scanned_at', '<', range.to)
  if ('ids' in codes) query = query.where('s.qr_code_id', 'in', codes.ids)
  if (after)
    query = query.where((eb) =>
      eb.or([
        eb('s.scanned_at', '>', after.at),
        eb.and([eb('s.scanned_at', '=', after.at), eb('s.id', '>', after.id as number)]),
      ]),
    )
  return query.orderBy('s.scanned_at').orderBy('s.id').limit(limit).execute()
}
