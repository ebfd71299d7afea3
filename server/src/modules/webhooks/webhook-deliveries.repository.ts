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
  /** At most this many per webhook… */
  perWebhook: number
  /** …and this many in all. */
  limit: number
  /** Webhooks this process has enough of in flight. */
  skipWebhookIds: string[]
}

/**
 * Leases due deliveries of active webhooks, oldest first and at most `perWebhook` of each.
 * The UPDATE checks the lease again, so of two processes claiming the same row one gets it;
 * on PostgreSQL `SKIP LOCKED` lets the other move on to other rows instead of waiting, and on
 * SQLite the single statement runs under the database's write lock.
 */
export async function claimDue(db: Db, dialect: Dialect, o: ClaimOptions): Promise<ClaimedDelivery[]> {
  const skip =
    o.skipWebhookIds.length > 0
      ? sql`and d.webhook_id not in (${sql.join(o.skipWebhookIds.map((id) => sql`${id}`))})`
      : sql``
  const candidates = sql`
    select c.id from (
      select d.id, d.next_attempt_at,
        row_number() over (partition by d.webhook_id order by d.next_attempt_at, d.id) as rn
      from webhook_deliveries d
      join webhooks w on w.id = d.webhook_id
      where d.status = 'pending' and d.next_attempt_at <= ${o.now}
        and (d.lease_until is null or d.lease_until < ${o.now})
        and w.is_active = 1 ${skip}
    ) c
    where c.rn <= ${o.perWebhook}
    order by c.next_attempt_at
    limit ${o.limit}`
  const ids =
    dialect === 'postgres'
      ? sql`select id from webhook_deliveries where id in (${candidates}) for update skip locked`
      : candidates
  const claimed = await sql<{ id: string }>`
    update webhook_deliveries set lease_until = ${o.leaseUntil}
    where id in (${ids}) and status = 'pending'
      and (lease_until is null or lease_until < ${o.now})
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

/** Gives leases back (a process stopping with claimed rows it did not attempt). */
export async function releaseLeases(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return
  await db.updateTable('webhook_deliveries').set({ lease_until: null }).where('id', 'in', ids).execute()
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
