import { randomBytes } from 'node:crypto'
import type { Ctx } from '../../context.js'
import type { ScanDailyTable, ScanTotalsTable, ScanVisitorsTable } from '../../db/schema.js'
import type { Device } from './scan-details.js'
import { isRetryableWriteError } from './scan-errors.js'
import * as repo from './scans.repository.js'

/** One counted scan, as the redirect saw it. No address: only the visitor's HMAC. */
export interface ScanEvent {
  qrCodeId: string
  /** ISO-8601 UTC. */
  scannedAt: string
  visitorId: string
  device: Device
  browser: string | null
  os: string | null
  country: string | null
  city: string | null
  /** Referrer host, `direct`, or null when the header was not a URL. */
  referrer: string | null
}

/** The dimensions analytics ranks; `scans` (value '') counts every scan. */
export const DIMENSIONS = ['device', 'browser', 'os', 'country', 'city', 'referrer'] as const
export type Dimension = (typeof DIMENSIONS)[number]
export const ALL_SCANS = 'scans'
export const UNKNOWN = 'Unknown'

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

interface Rollup {
  scansPerCode: Map<string, number>
  daily: ScanDailyTable[]
  totals: ScanTotalsTable[]
  /** Each (code, visitor) once, with the latest day in the batch; sorted. */
  visitors: ScanVisitorsTable[]
}

function count<T extends { count: number }>(map: Map<string, T>, key: string, row: () => T): void {
  const existing = map.get(key)
  if (existing) existing.count++
  else map.set(key, row())
}

/** Sums a batch per code, day, dimension and value. Sorted, so concurrent writers lock rows in one order. */
export function rollUp(events: ScanEvent[]): Rollup {
  const scansPerCode = new Map<string, number>()
  const daily = new Map<string, ScanDailyTable>()
  const totals = new Map<string, ScanTotalsTable>()
  const visitors = new Map<string, ScanVisitorsTable>()
  for (const event of events) {
    const qr_code_id = event.qrCodeId
    const day = event.scannedAt.slice(0, 10)
    scansPerCode.set(qr_code_id, (scansPerCode.get(qr_code_id) ?? 0) + 1)
    const values: [string, string][] = [
      [ALL_SCANS, ''],
      ['device', event.device],
      ['browser', event.browser ?? UNKNOWN],
      ['os', event.os ?? UNKNOWN],
      ['country', event.country ?? UNKNOWN],
      ['city', event.city ?? UNKNOWN],
      ['referrer', event.referrer ?? UNKNOWN],
    ]
    for (const [dimension, value] of values) {
      const key = `${qr_code_id}\0${dimension}\0${value}`
      count(daily, `${key}\0${day}`, () => ({ qr_code_id, dimension, day, value, count: 1 }))
      count(totals, key, () => ({ qr_code_id, dimension, value, count: 1 }))
    }
    const visitorKey = `${qr_code_id}\0${event.visitorId}`
    const seen = visitors.get(visitorKey)
    if (!seen) visitors.set(visitorKey, { qr_code_id, visitor_id: event.visitorId, last_day: day })
    else if (day > seen.last_day) seen.last_day = day
  }
  const byKey = (a: [string, unknown], b: [string, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)
  const sorted = <T>(map: Map<string, T>) => [...map.entries()].sort(byKey).map(([, row]) => row)
  return { scansPerCode, daily: sorted(daily), totals: sorted(totals), visitors: sorted(visitors) }
}

/**
 * Moves each visitor's last-seen day forward and the histogram with it: a new visitor adds
 * one to their day; a returning one leaves their old day for the new one.
 */
async function updateVisitors(ctx: Pick<Ctx, 'db' | 'dialect'>, visitors: ScanVisitorsTable[]) {
  if (visitors.length === 0) return
  const codes = [...new Set(visitors.map((v) => v.qr_code_id))]
  const ids = [...new Set(visitors.map((v) => v.visitor_id))]
  const stored = new Map<string, string>()
  for (const row of await repo.findVisitorLastDays(ctx.db, ctx.dialect, codes, ids))
    stored.set(`${row.qr_code_id}\0${row.visitor_id}`, row.last_day)
  const added: ScanVisitorsTable[] = []
  const moved: ScanVisitorsTable[] = []
  const deltas = new Map<string, { qr_code_id: string; day: string; count: number }>()
  const shift = (qr_code_id: string, day: string, by: number) => {
    const key = `${qr_code_id}\0${day}`
    const row = deltas.get(key)
    if (row) row.count += by
    else deltas.set(key, { qr_code_id, day, count: by })
  }
  for (const visitor of visitors) {
    const previous = stored.get(`${visitor.qr_code_id}\0${visitor.visitor_id}`)
    if (previous === undefined) {
      added.push(visitor)
      shift(visitor.qr_code_id, visitor.last_day, 1)
    } else if (visitor.last_day > previous) {
      moved.push(visitor)
      shift(visitor.qr_code_id, previous, -1)
      shift(visitor.qr_code_id, visitor.last_day, 1)
    }
  }
  await repo.insertVisitors(ctx.db, ctx.dialect, added)
  await repo.setVisitorLastDays(ctx.db, ctx.dialect, moved)
  const changes = [...deltas.entries()]
    .filter(([, row]) => row.count !== 0)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, row]) => row)
  await repo.addVisitorDays(ctx.db, ctx.dialect, changes)
}

const ATTEMPTS = 3

/**
 * The bulk write path: stores a batch of scans and, in the same transaction, adds them to
 * `qr_codes.total_scans` and every rollup analytics reads, so the two never disagree.
 * Scans of codes purged meanwhile are dropped. Returns how many scans were stored.
 */
export async function writeScans(ctx: Pick<Ctx, 'db' | 'dialect'>, events: ScanEvent[]): Promise<number> {
  if (events.length === 0) return 0
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.transaction().execute(async (trx) => {
        const tx = { db: trx, dialect: ctx.dialect }
        const existing = await repo.findExistingCodeIds(trx, [...new Set(events.map((e) => e.qrCodeId))])
        const kept = events.filter((e) => existing.has(e.qrCodeId))
        const rollup = rollUp(kept)
        await repo.insertScans(
          trx,
          ctx.dialect,
          kept.map((e) => ({
            qr_code_id: e.qrCodeId,
            scanned_at: e.scannedAt,
            visitor_id: e.visitorId,
            device: e.device,
            browser: e.browser,
            os: e.os,
            country: e.country,
            city: e.city,
            referrer: e.referrer,
          })),
        )
        for (const [qrCodeId, n] of [...rollup.scansPerCode].sort(([a], [b]) => (a < b ? -1 : 1)))
          await repo.addTotalScans(trx, qrCodeId, n)
        await repo.addDailyCounts(trx, ctx.dialect, rollup.daily)
        await repo.addTotalCounts(trx, ctx.dialect, rollup.totals)
        await updateVisitors(tx, rollup.visitors)
        return kept.length
      })
    } catch (error) {
      // A concurrent writer added the same visitor, or PostgreSQL picked this one as a deadlock victim.
      if (attempt >= ATTEMPTS || !isRetryableWriteError(error)) throw error
    }
  }
}
