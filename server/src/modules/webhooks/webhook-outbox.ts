import type { ScanCreatedData, WebhookEventData, WebhookEventType } from '@qrctl/contract'
import type { Ctx } from '../../context.js'
import type { Db } from '../../db/database.js'
import type { ScanEvent } from '../scans/scan-event.js'
import { UNKNOWN } from '../scans/scan-rollup.js'
import type { WebhookRecord } from './webhooks.repository.js'
import * as repo from './webhooks.repository.js'

type OutboxCtx = Pick<Ctx, 'clock' | 'ids' | 'config' | 'dialect'>

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

/**
 * The `webhook-id` of an event: the same on every attempt and for every webhook. 32 hex digits,
 * the first 12 the time in milliseconds, so new rows append to the outbox's primary key
 * instead of landing at random places in it (thousands a second under scan load).
 */
function eventId(ctx: OutboxCtx): string {
  const time = ctx.clock.now().getTime().toString(16).padStart(12, '0')
  return `msg_${time}${ctx.ids.uuid().replace(/-/g, '').slice(-20)}`
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

function eventRow(ctx: OutboxCtx, event: OutboxEvent, now: string, isFannedOut: boolean): repo.EventRow {
  const id = eventId(ctx)
  const timestamp = event.timestamp ?? now
  return {
    id,
    account_id: event.accountId,
    type: event.type,
    qr_code_id: event.qrCodeId,
    body: JSON.stringify({ type: event.type, timestamp, data: event.data }),
    is_fanned_out: isFannedOut ? 1 : 0,
    is_bundle: 0,
    created_at: now,
  }
}

/** Scan events per bundle row: a fan-out step unpacks one bundle in one transaction. */
const BUNDLE_SIZE = 200

/**
 * What a bundle row's body holds. It is written on the scan path (issue #18.6: the scan writer's
 * CPU is the redirects' CPU), so it is compact: each code once, each scan as a row of its
 * `scan.created` data with its code's place in `codes`, and no event ids; unpacking gives the
 * ids and builds each event's body, off the scan path. A bundle of objects with an id per event
 * (`LegacyBundle`) took about twice the writer's time and bytes.
 */
interface Bundle {
  codes: [id: string, shortCode: string | null][]
  scans: BundledScan[]
}
type BundledScan = [
  code: number,
  scannedAt: string,
  device: ScanEvent['device'],
  browser: string | null,
  os: string | null,
  country: string | null,
  city: string | null,
  referrer: string | null,
  visitorId: string,
]
/** A bundle as written before the compact form: kept readable for rows an upgrade finds waiting. */
interface LegacyBundle {
  ids: string[]
  qrCodeIds: string[]
  events: unknown[]
}

function deliveryRow(
  ctx: OutboxCtx,
  eventId: string,
  type: string,
  webhookId: string,
  now: string,
): repo.DeliveryRow {
  return {
    id: ctx.ids.uuid(),
    webhook_id: webhookId,
    event_id: eventId,
    type,
    status: 'pending',
    attempts: 0,
    max_attempts: maxAttempts(ctx),
    next_attempt_at: now,
    created_at: now,
  }
}

/** Writes events for the senders to fan out (events nobody wants are not stored). */
async function store(ctx: OutboxCtx, trx: Db, events: OutboxEvent[]): Promise<void> {
  if (events.length === 0) return
  const now = ctx.clock.now().toISOString()
  await repo.insertEvents(
    trx,
    ctx.dialect,
    events.map((event) => eventRow(ctx, event, now, false)),
  )
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
  const wanted = events.filter((e) =>
    webhooks.some((w) => w.accountId === e.accountId && wants(w, e.type, e.qrCodeId)),
  )
  await store(ctx, trx, wanted)
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
  const now = ctx.clock.now().toISOString()
  // Fanned out at once, to this webhook alone.
  const row = eventRow(ctx, event, now, true)
  const delivery = deliveryRow(ctx, row.id, event.type, webhook.id, now)
  await repo.insertEvents(trx, ctx.dialect, [row])
  await repo.insertDeliveries(trx, ctx.dialect, [delivery])
  return delivery
}

/** A bundled scan's `scan.created` event, as its own outbox row's body holds it. */
function scanEventBody(bundle: Bundle, scan: BundledScan): string {
  const [code, scannedAt, device, browser, os, country, city, referrer, visitorId] = scan
  const [qrCodeId, shortCode] = bundle.codes[code] ?? ['', null]
  const data: ScanCreatedData = {
    qrCodeId,
    shortCode,
    scannedAt,
    device,
    browser: browser ?? UNKNOWN,
    os: os ?? UNKNOWN,
    country: country ?? UNKNOWN,
    city: city ?? UNKNOWN,
    referrer: referrer ?? UNKNOWN,
    visitorId,
  }
  return JSON.stringify({ type: 'scan.created', timestamp: scannedAt, data })
}

/** `scan.created` for a batch of stored scans, in the batch's own transaction. */
export async function appendScanEvents(ctx: OutboxCtx, trx: Db, scans: readonly ScanEvent[]): Promise<void> {
  if (scans.length === 0) return
  const codes = await repo.scanSubscriptions(trx, [...new Set(scans.map((s) => s.qrCodeId))])
  if (codes.size === 0) return
  // Per account, bundles of BUNDLE_SIZE: one row per 200 scans here; the senders unpack them
  // into one row per event, and fan those out, off the scan path.
  const now = ctx.clock.now().toISOString()
  const bundles = new Map<string, { bundle: Bundle; codes: Map<string, number> }[]>()
  for (const scan of scans) {
    const code = codes.get(scan.qrCodeId)
    if (!code?.webhooks.some((w) => wants(w, 'scan.created', scan.qrCodeId))) continue
    const list = bundles.get(code.accountId) ?? []
    bundles.set(code.accountId, list)
    let open = list[list.length - 1]
    if (!open || open.bundle.scans.length >= BUNDLE_SIZE) {
      open = { bundle: { codes: [], scans: [] }, codes: new Map() }
      list.push(open)
    }
    let place = open.codes.get(scan.qrCodeId)
    if (place === undefined) {
      place = open.bundle.codes.push([scan.qrCodeId, code.shortCode]) - 1
      open.codes.set(scan.qrCodeId, place)
    }
    open.bundle.scans.push([
      place,
      scan.scannedAt,
      scan.device,
      scan.browser,
      scan.os,
      scan.country,
      scan.city,
      scan.referrer,
      scan.visitorId,
    ])
  }
  const rows: repo.EventRow[] = []
  for (const [accountId, list] of bundles)
    for (const { bundle } of list)
      rows.push({
        id: eventId(ctx),
        account_id: accountId,
        type: 'scan.created',
        qr_code_id: null,
        body: JSON.stringify(bundle),
        is_fanned_out: 0,
        is_bundle: 1,
        created_at: now,
      })
  await repo.insertEvents(trx, ctx.dialect, rows)
}

/** The events a bundle row stands for, as rows of their own (already fanned out by the caller). */
function unpack(ctx: OutboxCtx, row: repo.PendingEvent): repo.EventRow[] {
  const event = (id: string, qrCodeId: string | null, body: string): repo.EventRow => ({
    id,
    account_id: row.account_id,
    type: row.type,
    qr_code_id: qrCodeId,
    body,
    is_fanned_out: 1,
    is_bundle: 0,
    created_at: row.created_at,
  })
  const parsed = JSON.parse(row.body ?? '{}') as Bundle | LegacyBundle
  if ('ids' in parsed)
    return parsed.ids.map((id, i) => event(id, parsed.qrCodeIds[i] ?? null, JSON.stringify(parsed.events[i])))
  return parsed.scans.map((scan) =>
    event(eventId(ctx), parsed.codes[scan[0]]?.[0] ?? null, scanEventBody(parsed, scan)),
  )
}

/**
 * Turns up to `limit` stored events into one pending delivery per active webhook that wants
 * each (by its events and codes, and created before the event), in one transaction, and
 * answers how many outbox rows it took. A bundle ends the take: it alone is up to 200 events,
 * 2,000 deliveries for 10 webhooks, written while the event loop waits (a restart that found
 * 50 bundles waiting wrote 110,000 rows in one step). Every server process runs it; an event
 * is taken once.
 */
export async function fanOutEvents(
  ctx: Pick<Ctx, 'db' | 'dialect' | 'clock' | 'ids' | 'config'>,
  limit: number,
) {
  if (!(await repo.hasEventsToFanOut(ctx.db))) return 0
  return ctx.db.transaction().execute(async (trx) => {
    const rows = await repo.takeEventsToFanOut(trx, ctx.dialect, limit)
    const firstBundle = rows.findIndex((e) => e.is_bundle === 1)
    const taken = firstBundle === -1 ? rows : rows.slice(0, firstBundle + 1)
    if (taken.length === 0) return 0
    const bundles = taken.filter((e) => e.is_bundle === 1)
    const unpacked = bundles.flatMap((bundle) => unpack(ctx, bundle))
    const events = [...taken.filter((e) => e.is_bundle !== 1), ...unpacked]
    const webhooks = await repo.activeWebhooksOfAccounts(trx, [...new Set(events.map((e) => e.account_id))])
    const now = ctx.clock.now().toISOString()
    const deliveries: repo.DeliveryRow[] = []
    for (const event of events)
      for (const w of webhooks)
        if (
          w.accountId === event.account_id &&
          w.createdAt <= event.created_at &&
          wants(w, event.type as WebhookEventType, event.qr_code_id)
        )
          deliveries.push(deliveryRow(ctx, event.id, event.type, w.id, now))
    // Events a webhook no longer wants are still kept (their rows are cheap), deliveries only where wanted.
    await repo.insertEvents(trx, ctx.dialect, unpacked)
    await repo.deleteEvents(
      trx,
      bundles.map((b) => b.id),
    )
    await repo.insertDeliveries(trx, ctx.dialect, deliveries)
    await repo.markFannedOut(
      trx,
      taken.filter((e) => e.is_bundle !== 1).map((e) => e.id),
    )
    return taken.length
  })
}
