import type { ScanCreatedData, WebhookEventData, WebhookEventType } from '@qrctl/contract'
import type { Ctx } from '../../context.js'
import type { Db } from '../../db/database.js'
import type { ScanEvent } from '../scans/scan-event.js'
import { UNKNOWN } from '../scans/scan-rollup.js'
import type { StoredScanId } from '../scans/scans.repository.js'
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

/**
 * A delivery's id: a UUID of version 7, the first 48 bits the time in milliseconds, for the same
 * reason. A fan-out writes one delivery per event and webhook (2,000 rows for a bundle and 10
 * webhooks); random (version 4) keys put each at a random leaf of the primary key, so every row
 * dirtied a page of its own once the table outgrew the cache, written to the WAL whole.
 */
function deliveryId(ctx: OutboxCtx): string {
  const time = ctx.clock.now().getTime().toString(16).padStart(12, '0')
  const random = ctx.ids.uuid()
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15, 18)}-${random.slice(19)}`
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
 * What a bundle row's body holds: the `scans.id` of its scans, as runs of consecutive ids
 * (`[first, last]`; one run for a batch's scans of one account on SQLite). It is written on the
 * scan path (issue #18.6: the scan writer's CPU is the redirects' CPU), in the scans' own
 * transaction, so it refers to the scan rows rather than copying them: about 20 bytes a bundle
 * instead of 135 a scan. Unpacking reads the scans and builds each event, off the scan path.
 */
interface Bundle {
  runs: [first: number, last: number][]
}
/** A bundle as written before scans were referred to by id (still readable for rows an upgrade finds waiting). */
interface CopiedBundle {
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
    id: deliveryId(ctx),
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

/** A scan's `scan.created` event, as its own outbox row's body holds it. */
function scanEventBody(scan: repo.BundledScanRow): string {
  const data: ScanCreatedData = {
    qrCodeId: scan.qr_code_id,
    shortCode: scan.short_code,
    scannedAt: scan.scanned_at,
    device: scan.device as ScanEvent['device'],
    browser: scan.browser ?? UNKNOWN,
    os: scan.os ?? UNKNOWN,
    country: scan.country ?? UNKNOWN,
    city: scan.city ?? UNKNOWN,
    referrer: scan.referrer ?? UNKNOWN,
    visitorId: scan.visitor_id,
  }
  return JSON.stringify({ type: 'scan.created', timestamp: scan.scanned_at, data })
}

/** Runs of consecutive ids (`ids` ascending). */
function runsOf(ids: number[]): [number, number][] {
  const runs: [number, number][] = []
  for (const id of ids) {
    const last = runs[runs.length - 1]
    if (last && id === last[1] + 1) last[1] = id
    else runs.push([id, id])
  }
  return runs
}

/**
 * `scan.created` for a batch of stored scans, in the batch's own transaction: per account, one
 * bundle row per BUNDLE_SIZE scans that some webhook wants, naming the scans by id. The senders
 * unpack them into one row per event, and fan those out, off the scan path.
 */
export async function appendScanEvents(ctx: OutboxCtx, trx: Db, ids: readonly StoredScanId[]): Promise<void> {
  if (ids.length === 0) return
  const codes = await repo.scanSubscriptions(trx, [...new Set(ids.map((s) => s.qrCodeId))])
  if (codes.size === 0) return
  const wanted = new Map<string, number[]>()
  for (const { id, qrCodeId } of ids) {
    const code = codes.get(qrCodeId)
    if (!code?.webhooks.some((w) => wants(w, 'scan.created', qrCodeId))) continue
    const list = wanted.get(code.accountId) ?? []
    wanted.set(code.accountId, list)
    list.push(id)
  }
  const now = ctx.clock.now().toISOString()
  const rows: repo.EventRow[] = []
  for (const [accountId, list] of wanted) {
    list.sort((a, b) => a - b)
    for (let i = 0; i < list.length; i += BUNDLE_SIZE)
      rows.push({
        id: eventId(ctx),
        account_id: accountId,
        type: 'scan.created',
        qr_code_id: null,
        body: JSON.stringify({ runs: runsOf(list.slice(i, i + BUNDLE_SIZE)) } satisfies Bundle),
        is_fanned_out: 0,
        is_bundle: 1,
        created_at: now,
      })
  }
  await repo.insertEvents(trx, ctx.dialect, rows)
}

/**
 * The events a bundle row stands for, as rows of their own (already fanned out by the caller).
 * A scan deleted since (its code purged, 30 days after its deletion) has no event any more.
 */
async function unpack(ctx: OutboxCtx, trx: Db, row: repo.PendingEvent): Promise<repo.EventRow[]> {
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
  const parsed = JSON.parse(row.body ?? '{}') as Bundle | CopiedBundle | LegacyBundle
  if ('runs' in parsed)
    return (await repo.bundledScans(trx, row.account_id, parsed.runs)).map((scan) =>
      event(eventId(ctx), scan.qr_code_id, scanEventBody(scan)),
    )
  if ('ids' in parsed)
    return parsed.ids.map((id, i) => event(id, parsed.qrCodeIds[i] ?? null, JSON.stringify(parsed.events[i])))
  return parsed.scans.map((scan) => {
    const [code, scannedAt, device, browser, os, country, city, referrer, visitorId] = scan
    const [qrCodeId, shortCode] = parsed.codes[code] ?? ['', null]
    const body = scanEventBody({
      qr_code_id: qrCodeId,
      short_code: shortCode,
      scanned_at: scannedAt,
      device,
      browser,
      os,
      country,
      city,
      referrer,
      visitor_id: visitorId,
    })
    return event(eventId(ctx), qrCodeId, body)
  })
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
    const unpacked: repo.EventRow[] = []
    for (const bundle of bundles) unpacked.push(...(await unpack(ctx, trx, bundle)))
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
