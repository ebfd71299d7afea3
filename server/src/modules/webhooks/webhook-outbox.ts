import type { ScanCreatedData, WebhookEventData, WebhookEventType } from '@qrctl/contract'
import type { Ctx } from '../../context.js'
import type { Db } from '../../db/database.js'
import type { ScanEvent } from '../scans/scan-event.js'
import { UNKNOWN } from '../scans/scan-rollup.js'
import type { WebhookRecord } from './webhooks.repository.js'
import * as repo from './webhooks.repository.js'

type OutboxCtx = Pick<Ctx, 'clock' | 'ids' | 'config'>

/** One event of a change, before it is fanned out to the webhooks that want it. */
export type OutboxEvent = {
  [T in WebhookEventType]: {
    accountId: string
    type: T
    data: WebhookEventData<T>
    /** The code the event is about (a showcase's `qrCodeId`), for webhooks filtered by code. */
    qrCodeId: string | null
    /** ISO 8601; defaults to now. */
    timestamp?: string
  }
}[WebhookEventType]

/** The `webhook-id` of an event: the same on every attempt and for every webhook. */
function eventId(ctx: OutboxCtx): string {
  return `msg_${ctx.ids.uuid().replace(/-/g, '')}`
}

export function wants(webhook: WebhookRecord, type: WebhookEventType, qrCodeId: string | null): boolean {
  if (!webhook.events.includes('*') && !webhook.events.includes(type)) return false
  if (webhook.qrCodeIds === null) return true
  return qrCodeId !== null && webhook.qrCodeIds.includes(qrCodeId)
}

/** How many attempts a new delivery gets: the first, then one per retry delay. */
export function maxAttempts(ctx: OutboxCtx): number {
  return 1 + ctx.config.webhookRetryDelays.length
}

/** Writes events and one pending delivery per receiving webhook; events nobody wants are not stored. */
async function store(
  ctx: OutboxCtx,
  trx: Db,
  events: { event: OutboxEvent; to: WebhookRecord[] }[],
): Promise<repo.DeliveryRow[]> {
  const now = ctx.clock.now().toISOString()
  const eventRows: repo.EventRow[] = []
  const deliveryRows: repo.DeliveryRow[] = []
  for (const { event, to } of events) {
    if (to.length === 0) continue
    const id = eventId(ctx)
    const timestamp = event.timestamp ?? now
    eventRows.push({
      id,
      account_id: event.accountId,
      type: event.type,
      body: JSON.stringify({ type: event.type, timestamp, data: event.data }),
      created_at: now,
    })
    for (const webhook of to)
      deliveryRows.push({
        id: ctx.ids.uuid(),
        webhook_id: webhook.id,
        event_id: id,
        type: event.type,
        status: 'pending',
        attempts: 0,
        max_attempts: maxAttempts(ctx),
        next_attempt_at: now,
        created_at: now,
      })
  }
  await repo.insertEvents(trx, eventRows)
  await repo.insertDeliveries(trx, deliveryRows)
  return deliveryRows
}

/**
 * Records events in the outbox, inside the caller's transaction (DESIGN §15): they exist exactly
 * when the change that caused them commits, and the sender of every server process picks them
 * up from there. This is the one function other modules call; they never call the sender.
 *
 *     await ctx.db.transaction().execute(async (trx) => {
 *       await repo.setDeletedAt(trx, accountId, id, now, now)
 *       await appendEvents(ctx, trx, [{ accountId, type: 'qr_code.deleted', data: code, qrCodeId: id }])
 *     })
 */
export async function appendEvents(ctx: OutboxCtx, trx: Db, events: OutboxEvent[]): Promise<void> {
  if (events.length === 0) return
  const webhooks = await repo.activeWebhooksOfAccounts(trx, [...new Set(events.map((e) => e.accountId))])
  if (webhooks.length === 0) return
  await store(
    ctx,
    trx,
    events.map((event) => ({
      event,
      to: webhooks.filter((w) => w.accountId === event.accountId && wants(w, event.type, event.qrCodeId)),
    })),
  )
}

/** `webhook.test` to one webhook, whatever its filters; answers its delivery row. */
export async function appendTestEvent(
  ctx: OutboxCtx,
  trx: Db,
  webhook: WebhookRecord,
): Promise<repo.DeliveryRow> {
  const event: OutboxEvent = {
    accountId: webhook.accountId,
    type: 'webhook.test',
    data: { webhookId: webhook.id },
    qrCodeId: null,
  }
  const [delivery] = await store(ctx, trx, [{ event, to: [webhook] }])
  return delivery as repo.DeliveryRow
}

/** `data` of `scan.created`: what analytics shows for the scan. */
function scanData(scan: ScanEvent, shortCode: string | null): ScanCreatedData {
  return {
    qrCodeId: scan.qrCodeId,
    shortCode,
    scannedAt: scan.scannedAt,
    device: scan.device,
    browser: scan.browser ?? UNKNOWN,
    os: scan.os ?? UNKNOWN,
    country: scan.country ?? UNKNOWN,
    city: scan.city ?? UNKNOWN,
    referrer: scan.referrer ?? UNKNOWN,
    visitorId: scan.visitorId,
  }
}

/** `scan.created` for a batch of stored scans, in the batch's own transaction. */
export async function appendScanEvents(ctx: OutboxCtx, trx: Db, scans: readonly ScanEvent[]): Promise<void> {
  if (scans.length === 0) return
  const codes = await repo.scanSubscriptions(trx, [...new Set(scans.map((s) => s.qrCodeId))])
  if (codes.size === 0) return
  const events: { event: OutboxEvent; to: WebhookRecord[] }[] = []
  for (const scan of scans) {
    const code = codes.get(scan.qrCodeId)
    if (!code) continue
    const to = code.webhooks.filter((w) => wants(w, 'scan.created', scan.qrCodeId))
    if (to.length === 0) continue
    events.push({
      event: {
        accountId: code.accountId,
        type: 'scan.created',
        data: scanData(scan, code.shortCode),
        qrCodeId: scan.qrCodeId,
        timestamp: scan.scannedAt,
      },
      to,
    })
  }
  await store(ctx, trx, events)
}
