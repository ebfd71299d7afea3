import type { Db } from '../../db/database.js'

/** The creation instant of the account's oldest live code (ISO), if it has one. */
export async function earliestCreation(db: Db, accountId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('qr_codes')
    .select((eb) => eb.fn.min('created_at').as('first'))
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
  return row?.first ?? undefined
}

/** Which of these ids are live (not deleted) codes of the account, with their creation. */
export async function findLiveCodes(
  db: Db,
  accountId: string,
  ids: string[],
): Promise<{ id: string; createdAt: string }[]> {
  const rows = await db
    .selectFrom('qr_codes')
    .select(['id', 'created_at'])
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where('id', 'in', ids)
    .execute()
  return rows.map((r) => ({ id: r.id, createdAt: r.created_at }))
}

/** Up to `limit` ids of the account's live codes. */
export async function liveCodeIds(db: Db, accountId: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('qr_codes')
    .select('id')
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .limit(limit)
    .execute()
  return rows.map((r) => r.id)
}
