import { sql } from 'kysely'
import type { Db, Dialect } from '../../db/database.js'

/** A claimed delivery with what its attempt needs. */
export interface ClaimedDelivery {
  id: string
  webhookId: string
  eventId: string
  attempts: number
  maxAttempts: number
  url: string
  secret: string
  previousSecret: string | null
  previousSecretUntil: string | null
  body: string
}

export interface ClaimOptions {
  now: string
  leaseUntil: string
  /** At most this many. */
  limit: number
}

/**
 * The active webhooks: the sender claims for each in turn (a short list per process). With a
 * limit, at most that many (one says whether there is any).
 */
export async function activeWebhookIds(db: Db, limit?: number): Promise<string[]> {
  let query = db.selectFrom('webhooks').select('id').where('is_active', '=', 1)
  if (limit !== undefined) query = query.limit(limit)
  const rows = await query.execute()
  // In one order, whatever the database's collation: the sender takes turns along it.
  return rows.map((r) => r.id).sort()
}

/**
 * Leases a webhook's due deliveries, oldest first, through the (webhook, status, due) index:
 * a long backlog costs nothing until its turn. The UPDATE checks the lease again, so of two
 * processes claiming the same row one gets it; on PostgreSQL `SKIP LOCKED` lets the other move
 * on instead of waiting, and on SQLite the single statement runs under the write lock.
 */
export async function claimDue(
  db: Db,
  dialect: Dialect,
  webhookId: string,
  o: ClaimOptions,
): Promise<ClaimedDelivery[]> {
  const lock = dialect === 'postgres' ? sql`for update skip locked` : sql``
  const claimed = await sql<{ id: string }>`
    update webhook_deliveries set lease_until = ${o.leaseUntil}
    where id in (
      select id from webhook_deliveries
      where webhook_id = ${webhookId} and status = 'pending' and next_attempt_at <= ${o.now}
        and (lease_until is null or lease_until < ${o.now})
      order by next_attempt_at
      limit ${o.limit}
      ${lock}
    ) and status = 'pending' and (lease_until is null or lease_until < ${o.now})
    returning id`.execute(db)
  const claimedIds = claimed.rows.map((r) => r.id)
  if (claimedIds.length === 0) return []
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .select([
      'd.id',
      'd.webhook_id',
      'd.event_id',
      'd.attempts',
      'd.max_attempts',
      'w.url',
      'w.secret',
      'w.previous_secret',
      'w.previous_secret_until',
      'e.body',
    ])
    .where('d.id', 'in', claimedIds)
    .orderBy('d.next_attempt_at')
    .execute()
  return rows.map((r) => ({
    id: r.id,
    webhookId: r.webhook_id,
    eventId: r.event_id,
    attempts: Number(r.attempts),
    maxAttempts: Number(r.max_attempts),
    url: r.url,
    secret: r.secret,
    previousSecret: r.previous_secret,
    previousSecretUntil: r.previous_secret_until,
    body: r.body,
  }))
}

export interface AttemptOutcome {
  status: 'pending' | 'succeeded' | 'failed'
  attempts: number
  nextAttemptAt: string | null
  lastAttemptAt: string
  responseStatus: number | null
  responseBody: string | null
  durationMs: number
}

/** Stores an attempt's outcome and gives up the lease. */
export async function recordAttempt(db: Db, id: string, o: AttemptOutcome): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({
      status: o.status,
      attempts: o.attempts,
      next_attempt_at: o.nextAttemptAt,
      lease_until: null,
      last_attempt_at: o.lastAttemptAt,
      response_status: o.responseStatus,
      response_body: o.responseBody,
      duration_ms: o.durationMs,
    })
    .where('id', '=', id)
    .execute()
}

/** After a delivery ended: counts a failure (answering the new count) or resets the count. */
export async function countEnding(db: Db, webhookId: string, failed: boolean): Promise<number> {
  const row = await db
    .updateTable('webhooks')
    .set((eb) => ({ consecutive_failures: failed ? eb('consecutive_failures', '+', 1) : 0 }))
    .where('id', '=', webhookId)
    .returning('consecutive_failures')
    .executeTakeFirst()
  return Number(row?.consecutive_failures ?? 0)
}
