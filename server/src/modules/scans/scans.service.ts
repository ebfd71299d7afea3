import { randomBytes } from 'node:crypto'
import type { Ctx } from '../../context.js'
import { isRetryableWriteError } from '../../db/errors.js'
import type { BeforeCommit } from '../../db/unit-of-work.js'
import { yieldToRequests } from './batch-statement.js'
import type { ScanEvent } from './scan-event.js'
import { rollUp, type VisitorLastDay } from './scan-rollup.js'
import { addToWindowRollups } from './scan-windows.js'
import * as repo from './scans.repository.js'
import type { SeenVisitors } from './seen-visitors.js'

/** VISITOR_SECRET when configured, else the one stored in `settings`, generated on first use. */
export async function loadVisitorSecret(ctx: Pick<Ctx, 'db' | 'config'>): Promise<string> {
  if (ctx.config.visitorSecret) return ctx.config.visitorSecret
  const stored = await repo.findVisitorSecret(ctx.db)
  if (stored) return stored
  await repo.insertVisitorSecretIfAbsent(ctx.db, randomBytes(32).toString('base64url'))
  const secret = await repo.findVisitorSecret(ctx.db)
  if (!secret) throw new Error('visitor secret missing after insert')
  return secret
}

/**
 * Moves each visitor's last-seen day forward and the histogram with it: a new visitor adds
 * one to their day; a returning one leaves their old day for the new one. A visitor's last
 * day is their latest visit day in scan_visitor_dates, read before the batch's own rows go
 * in (one seek each, per code); nothing is written for it. Answers the last day each visitor
 * it read had before the batch ('' for a new one), keyed by code and visitor, for the
 * visitor gaps. Visitors `seen` knows are current need no read at all.
 */
async function updateVisitors(
  ctx: Pick<Ctx, 'db' | 'dialect'>,
  batch: VisitorLastDay[],
  seen: SeenVisitors | undefined,
): Promise<Map<string, string>> {
  const lastDays = new Map<string, string>()
  const visitors = seen ? batch.filter((v) => !seen.isCurrent(v.qr_code_id, v.visitor_id, v.last_day)) : batch
  if (visitors.length === 0) return lastDays
  const deltas = new Map<string, { qr_code_id: string; day: string; count: number }>()
  const shift = (qr_code_id: string, day: string, by: number) => {
    const key = `${qr_code_id}\0${day}`
    const row = deltas.get(key)
    if (row) row.count += by
    else deltas.set(key, { qr_code_id, day, count: by })
  }
  // Visitors come sorted by code: one read per code.
  for (let start = 0; start < visitors.length; ) {
    const qrCodeId = visitors[start]?.qr_code_id as string
    let end = start
    while (end < visitors.length && visitors[end]?.qr_code_id === qrCodeId) end++
    const group = visitors.slice(start, end)
    const stored = new Map<string, string>()
    const ids = group.map((v) => v.visitor_id)
    for (const row of await repo.findLastVisitDays(ctx.db, ctx.dialect, qrCodeId, ids))
      stored.set(row.visitor_id, row.last_day)
    for (const visitor of group) {
      const previous = stored.get(visitor.visitor_id)
      lastDays.set(`${qrCodeId}\0${visitor.visitor_id}`, previous ?? '')
      if (previous === undefined) shift(qrCodeId, visitor.last_day, 1)
      else if (visitor.last_day > previous) {
        shift(qrCodeId, previous, -1)
        shift(qrCodeId, visitor.last_day, 1)
      }
    }
    start = end
  }
  const changes = [...deltas.entries()]
    .filter(([, row]) => row.count !== 0)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, row]) => row)
  await repo.addVisitorDays(ctx.db, ctx.dialect, changes)
  return lastDays
}

const ATTEMPTS = 3

/**
 * Where a buffer's batch sits in everything that buffer has taken: its scans are numbered
 * `firstSeq`, `firstSeq + 1`, … in the order they were scanned (a buffer writes them in that
 * order, and puts a failed batch back in front of the rest).
 */
export interface BatchPosition {
  writerId: string
  firstSeq: number
  /** Now, for the buffer's row. */
  at: string
}

/**
 * The bulk write path: stores a batch of scans and, in the same transaction, adds them to
 * `qr_codes.total_scans` and every rollup analytics reads, so the two never disagree.
 * Scans of codes purged meanwhile are dropped. Returns how many scans were stored.
 * `beforeCommit` gets the stored scans' row ids and codes in the same transaction (the webhook
 * outbox's `scan.created` events, DESIGN §15: they exist exactly when their scans do).
 *
 * With a `position`, a batch is stored once even when it is tried again after a commit whose
 * answer was lost (the connection cut after COMMIT reached the database): the transaction
 * reads how far its buffer got and skips the scans already stored.
 */
export async function writeScans(
  ctx: Pick<Ctx, 'db' | 'dialect'>,
  events: ScanEvent[],
  seen?: SeenVisitors,
  beforeCommit?: BeforeCommit<repo.StoredScanId[]>,
  position?: BatchPosition,
): Promise<number> {
  if (events.length === 0) return 0
  for (let attempt = 1; ; attempt++) {
    try {
      const { kept, visitors, dates } = await ctx.db.transaction().execute(async (trx) => {
        const tx = { db: trx, dialect: ctx.dialect }
        let unstored = events
        if (position) {
          const through = await repo.lockWriterPosition(trx, position.writerId, position.at)
          unstored = events.slice(Math.max(0, through - position.firstSeq + 1))
          const last = position.firstSeq + events.length - 1
          if (last > through) await repo.setWriterPosition(trx, position.writerId, last)
          if (unstored.length === 0) return { kept: 0, visitors: [], dates: [] }
        }
        const existing = await repo.findExistingCodeIds(trx, [...new Set(unstored.map((e) => e.qrCodeId))])
        const kept = unstored.filter((e) => existing.has(e.qrCodeId))
        const rollup = rollUp(kept)
        const rows = kept.map((e) => ({
          qr_code_id: e.qrCodeId,
          scanned_at: e.scannedAt,
          visitor_id: e.visitorId,
          device: e.device,
          browser: e.browser,
          os: e.os,
          country: e.country,
          city: e.city,
          referrer: e.referrer,
        }))
        // The outbox refers to the scans by id: only a batch with a hook needs them answered.
        let ids: repo.StoredScanId[] = []
        if (beforeCommit) ids = await repo.insertScansReturningIds(trx, ctx.dialect, rows)
        else await repo.insertScans(trx, ctx.dialect, rows)
        await yieldToRequests()
        for (const [qrCodeId, n] of [...rollup.scansPerCode].sort(([a], [b]) => (a < b ? -1 : 1)))
          await repo.addTotalScans(trx, qrCodeId, n)
        await repo.addDailyCounts(trx, ctx.dialect, rollup.daily)
        await repo.addTotalCounts(trx, ctx.dialect, rollup.totals)
        await yieldToRequests()
        const lastDays = await updateVisitors(tx, rollup.visitors, seen)
        const dates = await addToWindowRollups(
          trx,
          ctx.dialect,
          kept,
          lastDays,
          (row) => seen?.covers(row) ?? false,
        )
        await beforeCommit?.(trx, ids)
        return { kept: kept.length, visitors: rollup.visitors, dates }
      })
      seen?.remember(visitors, dates)
      return kept
    } catch (error) {
      // PostgreSQL picked this transaction as a deadlock victim, or another process held SQLite's lock.
      if (attempt >= ATTEMPTS || !isRetryableWriteError(error)) throw error
    }
  }
}
