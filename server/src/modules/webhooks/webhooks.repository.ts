import type { DeliveryStatus, WebhookDelivery, WebhookEventType } from '@qrctl/contract'
import { type Selectable, sql } from 'kysely'
import type { Db, Dialect } from '../../db/database.js'
import type { ScansTable, WebhookDeliveriesTable, WebhooksTable } from '../../db/schema.js'
import { BatchStatement } from '../scans/batch-statement.js'

export type Subscription = WebhookEventType | '*'
export type DisabledReason = 'gone' | 'failing'

/** A webhook as stored, secrets included (the service decides what leaves). */
export interface WebhookRecord {
  id: string
  accountId: string
  url: string
  description: string | null
  events: Subscription[]
  qrCodeIds: string[] | null
  isActive: boolean
  disabledReason: DisabledReason | null
  secret: string
  previousSecret: string | null
  previousSecretUntil: string | null
  consecutiveFailures: number
  createdAt: string
  updatedAt: string
}

export function toWebhookRecord(row: Selectable<WebhooksTable>): WebhookRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as Subscription[],
    qrCodeIds: row.qr_code_ids === null ? null : (JSON.parse(row.qr_code_ids) as string[]),
    isActive: Boolean(row.is_active),
    disabledReason: row.disabled_reason as DisabledReason | null,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretUntil: row.previous_secret_until,
    consecutiveFailures: Number(row.consecutive_failures),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

export async function insertWebhook(db: Db, r: WebhookRecord): Promise<void> {
  await db
    .insertInto('webhooks')
    .values({
      id: r.id,
      account_id: r.accountId,
      url: r.url,
      description: r.description,
      events: JSON.stringify(r.events),
      qr_code_ids: r.qrCodeIds === null ? null : JSON.stringify(r.qrCodeIds),
      is_active: r.isActive ? 1 : 0,
      disabled_reason: r.disabledReason,
      secret: r.secret,
      previous_secret: r.previousSecret,
      previous_secret_until: r.previousSecretUntil,
      consecutive_failures: r.consecutiveFailures,
      created_at: r.createdAt,
      updated_at: r.updatedAt,
    })
    .execute()
}

export async function findWebhook(db: Db, accountId: string, id: string): Promise<WebhookRecord | undefined> {
  const row = await db
    .selectFrom('webhooks')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
  return row && toWebhookRecord(row)
}

export async function countWebhooks(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function listWebhooks(db: Db, accountId: string, page: { limit: number; offset: number }) {
  const [rows, total] = await Promise.all([
    db
      .selectFrom('webhooks')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    countWebhooks(db, accountId),
  ])
  return { records: rows.map(toWebhookRecord), total }
}

/** Active webhooks of these accounts: the candidates of an event (filters are applied by the caller). */
export async function activeWebhooksOfAccounts(db: Db, accountIds: string[]): Promise<WebhookRecord[]> {
  if (accountIds.length === 0) return []
  const rows = await db
    .selectFrom('webhooks')
    .selectAll()
    .where('account_id', 'in', accountIds)
    .where('is_active', '=', 1)
    .execute()
  return rows.map(toWebhookRecord)
}

export interface WebhookChanges {
  url?: string
  description?: string | null
  events?: Subscription[]
  qrCodeIds?: string[] | null
  isActive?: boolean
  disabledReason?: DisabledReason | null
  secret?: string
  previousSecret?: string | null
  previousSecretUntil?: string | null
  consecutiveFailures?: number
  updatedAt?: string
}

export async function updateWebhook(db: Db, id: string, c: WebhookChanges): Promise<void> {
  await db
    .updateTable('webhooks')
    .set({
      ...(c.url !== undefined && { url: c.url }),
      ...(c.description !== undefined && { description: c.description }),
      ...(c.events !== undefined && { events: JSON.stringify(c.events) }),
      ...(c.qrCodeIds !== undefined && {
        qr_code_ids: c.qrCodeIds === null ? null : JSON.stringify(c.qrCodeIds),
      }),
      ...(c.isActive !== undefined && { is_active: c.isActive ? 1 : 0 }),
      ...(c.disabledReason !== undefined && { disabled_reason: c.disabledReason }),
      ...(c.secret !== undefined && { secret: c.secret }),
      ...(c.previousSecret !== undefined && { previous_secret: c.previousSecret }),
      ...(c.previousSecretUntil !== undefined && { previous_secret_until: c.previousSecretUntil }),
      ...(c.consecutiveFailures !== undefined && { consecutive_failures: c.consecutiveFailures }),
      ...(c.updatedAt !== undefined && { updated_at: c.updatedAt }),
    })
    .where('id', '=', id)
    .execute()
}

export async function deleteWebhook(db: Db, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('webhooks').where('account_id', '=', accountId).where('id', '=', id).execute()
}

/** Which of these ids are live codes of the account. */
export async function ownedQrCodeIds(db: Db, accountId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await db
    .selectFrom('qr_codes')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .where('deleted_at', 'is', null)
    .execute()
  return new Set(rows.map((r) => r.id))
}

// ---------------------------------------------------------------------------------------------
// The outbox: events and their deliveries.
// ---------------------------------------------------------------------------------------------

export interface EventRow {
  id: string
  account_id: string
  type: string
  qr_code_id: string | null
  body: string
  is_fanned_out: number
  is_bundle: number
  created_at: string
}

export type DeliveryRow = Pick<
  WebhookDeliveriesTable,
  | 'id'
  | 'webhook_id'
  | 'event_id'
  | 'type'
  | 'status'
  | 'attempts'
  | 'max_attempts'
  | 'next_attempt_at'
  | 'created_at'
>

/** Rows per statement: well under both databases' limits on bound parameters. */
const CHUNK = 200

// Scan batches append thousands of rows a second: statements of a few fixed shapes, compiled once.
const insertEventRows = new BatchStatement<EventRow>(
  ['id', 'account_id', 'type', 'qr_code_id', 'body', 'is_fanned_out', 'is_bundle', 'created_at'],
  (db, rows) => db.insertInto('webhook_events').values(rows),
)
const insertDeliveryRows = new BatchStatement<DeliveryRow>(
  [
    'id',
    'webhook_id',
    'event_id',
    'type',
    'status',
    'attempts',
    'max_attempts',
    'next_attempt_at',
    'created_at',
  ],
  (db, rows) => db.insertInto('webhook_deliveries').values(rows),
)

export async function insertEvents(db: Db, dialect: Dialect, rows: EventRow[]): Promise<void> {
  await insertEventRows.run(db, dialect, rows)
}

export async function insertDeliveries(db: Db, dialect: Dialect, rows: DeliveryRow[]): Promise<void> {
  await insertDeliveryRows.run(db, dialect, rows)
}

export function toDelivery(row: Selectable<WebhookDeliveriesTable>): WebhookDelivery {
  return {
    id: row.id,
    eventId: row.event_id,
    type: row.type as WebhookEventType,
    status: row.status as DeliveryStatus,
    attempts: Number(row.attempts),
    lastAttemptAt: row.last_attempt_at,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    responseStatus: row.response_status === null ? null : Number(row.response_status),
    responseBody: row.response_body,
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
  }
}

export async function findDelivery(db: Db, webhookId: string, id: string) {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .where('id', '=', id)
    .executeTakeFirst()
}

export async function listDeliveries(db: Db, webhookId: string, page: { limit: number; offset: number }) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', webhookId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('webhook_id', '=', webhookId)
      .executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(count.n) }
}

/** One more attempt, due now: the delivery is pending again until that attempt's answer. */
export async function scheduleRedelivery(db: Db, webhookId: string, id: string, now: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: 'pending',
      next_attempt_at: now,
      max_attempts: sql<number>`case when ${eb.ref('max_attempts')} > ${eb.ref('attempts')} then ${eb.ref('max_attempts')} else ${eb.ref('attempts')} + 1 end`,
    }))
    .where('webhook_id', '=', webhookId)
    .where('id', '=', id)
    .execute()
}

/** A disabled webhook gets nothing more: what was still pending ends failed. */
export async function failPendingDeliveries(db: Db, webhookId: string, reason: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', next_attempt_at: null, lease_until: null, response_body: reason })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .execute()
}

/** Ended deliveries older than `before`, then events no delivery refers to any more. */
export async function purgeDeliveriesBefore(db: Db, before: string): Promise<number> {
  const result = await db
    .deleteFrom('webhook_deliveries')
    .where('status', '!=', 'pending')
    .where('created_at', '<', before)
    .executeTakeFirst()
  await db
    .deleteFrom('webhook_events')
    .where('is_fanned_out', '=', 1)
    .where('created_at', '<', before)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries')
            .select('webhook_deliveries.id')
            .whereRef('webhook_deliveries.event_id', '=', 'webhook_events.id'),
        ),
      ),
    )
    .execute()
  return Number(result.numDeletedRows)
}

export interface CodeSubscriptions {
  accountId: string
  shortCode: string | null
  webhooks: WebhookRecord[]
}

/**
 * The active webhooks of the accounts owning these codes, per code: one query per scan batch,
 * answering nothing (cheaply) when no account involved has a webhook.
 */
export async function scanSubscriptions(
  db: Db,
  qrCodeIds: string[],
): Promise<Map<string, CodeSubscriptions>> {
  const out = new Map<string, CodeSubscriptions>()
  for (let i = 0; i < qrCodeIds.length; i += CHUNK) {
    const rows = await db
      .selectFrom('qr_codes')
      .innerJoin('webhooks', 'webhooks.account_id', 'qr_codes.account_id')
      .selectAll('webhooks')
      .select(['qr_codes.id as code_id', 'qr_codes.short_code as code_short_code'])
      .where('qr_codes.id', 'in', qrCodeIds.slice(i, i + CHUNK))
      .where('webhooks.is_active', '=', 1)
      .execute()
    for (const row of rows) {
      const { code_id, code_short_code, ...webhook } = row
      let entry = out.get(code_id)
      if (!entry) {
        entry = { accountId: webhook.account_id, shortCode: code_short_code, webhooks: [] }
        out.set(code_id, entry)
      }
      entry.webhooks.push(toWebhookRecord(webhook))
    }
  }
  return out
}

export type PendingEvent = Pick<
  EventRow,
  'id' | 'account_id' | 'type' | 'qr_code_id' | 'is_bundle' | 'created_at'
> & { body: string | null }

/**
 * Whether any event waits to be fanned out: a read, which takes no write lock. Most polls find
 * nothing, and on SQLite a write transaction opened for nothing would wait behind the scan
 * writer's batch while holding the event loop (its lock waits are synchronous).
 */
export async function hasEventsToFanOut(db: Db): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_events')
    .select('id')
    .where('is_fanned_out', '=', 0)
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/**
 * Events not fanned out yet, oldest first, locked for this transaction: on PostgreSQL another
 * process skips them (SKIP LOCKED); on SQLite the transaction holds the write lock from BEGIN.
 */
export async function takeEventsToFanOut(db: Db, dialect: Dialect, limit: number): Promise<PendingEvent[]> {
  const query = db
    .selectFrom('webhook_events')
    .select(['id', 'account_id', 'type', 'qr_code_id', 'is_bundle', 'created_at'])
    // Only a bundle's body is needed here (to unpack it).
    .select((eb) => eb.case().when('is_bundle', '=', 1).then(eb.ref('body')).else(null).end().as('body'))
    .where('is_fanned_out', '=', 0)
    .orderBy('created_at')
    .limit(limit)
  return dialect === 'postgres' ? query.forUpdate().skipLocked().execute() : query.execute()
}

export async function markFannedOut(db: Db, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += CHUNK)
    await db
      .updateTable('webhook_events')
      .set({ is_fanned_out: 1 })
      .where('id', 'in', ids.slice(i, i + CHUNK))
      .execute()
}

export async function deleteEvents(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return
  await db.deleteFrom('webhook_events').where('id', 'in', ids).execute()
}

/** A stored scan as a `scan.created` event tells it: the scan's columns but its id, and the code's short code. */
export type BundledScanRow = Omit<Selectable<ScansTable>, 'id'> & { short_code: string | null }

/**
 * The scans of a `scan.created` bundle (runs of `scans.id`) of this account, in id order: the
 * scans by their primary key, then their codes (a join let SQLite walk every scan of the code).
 */
export async function bundledScans(
  db: Db,
  accountId: string,
  runs: [first: number, last: number][],
): Promise<BundledScanRow[]> {
  const scans = []
  for (let i = 0; i < runs.length; i += CHUNK) {
    const part = runs.slice(i, i + CHUNK)
    scans.push(
      ...(await db
        .selectFrom('scans')
        .select([
          'id',
          'qr_code_id',
          'scanned_at',
          'device',
          'browser',
          'os',
          'country',
          'city',
          'referrer',
          'visitor_id',
        ])
        .where((eb) => eb.or(part.map(([first, last]) => eb.between('id', first, last))))
        .execute()),
    )
  }
  const codes = new Map<string, string | null>()
  const codeIds = [...new Set(scans.map((s) => s.qr_code_id))]
  for (let i = 0; i < codeIds.length; i += CHUNK)
    for (const code of await db
      .selectFrom('qr_codes')
      .select(['id', 'short_code'])
      .where('id', 'in', codeIds.slice(i, i + CHUNK))
      .where('account_id', '=', accountId)
      .execute())
      codes.set(code.id, code.short_code)
  return scans
    .filter((s) => codes.has(s.qr_code_id))
    .sort((a, b) => Number(a.id) - Number(b.id))
    .map(({ id: _, ...s }) => ({ ...s, short_code: codes.get(s.qr_code_id) ?? null }))
}
