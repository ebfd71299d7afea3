import type { Db } from '../../db/database.js'

/** The account's live dynamic codes: the only ones scans can belong to. */
export async function findImportTargets(
  db: Db,
  accountId: string,
): Promise<{ id: string; shortCode: string | null }[]> {
  const rows = await db
    .selectFrom('qr_codes')
    .select(['id', 'short_code'])
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where('type', '=', 'dynamic')
    .execute()
  return rows.map((r) => ({ id: r.id, shortCode: r.short_code }))
}
