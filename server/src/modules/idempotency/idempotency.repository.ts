import type { Db } from '../../db/database.js'

export interface StoredRequest {
  requestHash: string
  status: number | null
  responseBody: string | null
  createdAt: string
}

export async function findStoredRequest(
  db: Db,
  accountId: string,
  key: string,
): Promise<StoredRequest | undefined> {
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'status', 'response_body', 'created_at'])
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .executeTakeFirst()
  return (
    row && {
      requestHash: row.request_hash,
      status: row.status,
      responseBody: row.response_body,
      createdAt: row.created_at,
    }
  )
}

export async function insertPendingRequest(
  db: Db,
  accountId: string,
  key: string,
  requestHash: string,
  now: string,
) {
  await db
    .insertInto('idempotency_keys')
    .values({ account_id: accountId, key, request_hash: requestHash, created_at: now })
    .execute()
}

export async function completeRequest(db: Db, accountId: string, key: string, status: number, body: string) {
  await db
    .updateTable('idempotency_keys')
    .set({ status, response_body: body })
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .execute()
}

export async function deleteStoredRequest(db: Db, accountId: string, key: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('account_id', '=', accountId).where('key', '=', key).execute()
}

export async function purgeStoredRequestsBefore(db: Db, before: string): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', before).executeTakeFirst()
  return Number(result.numDeletedRows)
}
