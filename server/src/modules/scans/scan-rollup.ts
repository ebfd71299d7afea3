import type { ScanDailyTable, ScanTotalsTable } from '../../db/schema.js'
import type { ScanEvent } from './scan-event.js'

/** A visitor of a code and the UTC day of their latest scan (in a batch, or stored). */
export interface VisitorLastDay {
  qr_code_id: string
  visitor_id: string
  last_day: string
}

/** The dimensions analytics ranks. */
export const DIMENSIONS = ['device', 'browser', 'os', 'country', 'city', 'referrer'] as const
export type Dimension = (typeof DIMENSIONS)[number]
/** The rollup dimension that counts every scan (its value is ''). */
export const ALL_SCANS = 'scans'
export const UNKNOWN = 'Unknown'

/** Rollup dimensions in name order, so rows come out sorted without a sort of the whole batch. */
export const STORED = ['browser', 'city', 'country', 'device', 'os', 'referrer', ALL_SCANS] as const

interface CodeTally {
  scans: number
  /** day → one Map (value → count) per STORED dimension */
  days: Map<string, Map<string, number>[]>
  /** visitor id → latest day in the batch */
  visitors: Map<string, string>
}

export interface Rollup {
  scansPerCode: Map<string, number>
  daily: ScanDailyTable[]
  totals: ScanTotalsTable[]
  /** Each (code, visitor) once, with the latest day in the batch. */
  visitors: VisitorLastDay[]
}

function bump(counts: Map<string, number> | undefined, value: string): void {
  counts?.set(value, (counts.get(value) ?? 0) + 1)
}

/**
 * A new tally of a batch's scans in one bucket (a day, a quarter hour): one Map (value → count)
 * per STORED dimension, in its order.
 */
export const newTally = (): Map<string, number>[] => STORED.map(() => new Map<string, number>())

/** Counts a scan in a tally of `newTally`: its value in each dimension, and in all scans. */
export function tallyScan(tally: Map<string, number>[], scan: ScanEvent): void {
  bump(tally[0], scan.browser ?? UNKNOWN)
  bump(tally[1], scan.city ?? UNKNOWN)
  bump(tally[2], scan.country ?? UNKNOWN)
  bump(tally[3], scan.device)
  bump(tally[4], scan.os ?? UNKNOWN)
  bump(tally[5], scan.referrer ?? UNKNOWN)
  bump(tally[6], '')
}

/** A map's entries by key, strings or numbers alike (numbers by value, not as text). */
export const inKeyOrder = <K extends string | number, V>(map: Map<K, V>): [K, V][] =>
  [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))

/**
 * Sums a batch per code, day, dimension and value, keyed by the values themselves (no
 * composite string per dimension). Every list comes out in key order, so concurrent writers
 * lock rows in the same order.
 */
export function rollUp(events: ScanEvent[]): Rollup {
  const codes = new Map<string, CodeTally>()
  for (const event of events) {
    let tally = codes.get(event.qrCodeId)
    if (!tally) {
      tally = { scans: 0, days: new Map(), visitors: new Map() }
      codes.set(event.qrCodeId, tally)
    }
    tally.scans++
    const day = event.scannedAt.slice(0, 10)
    let dims = tally.days.get(day)
    if (!dims) {
      dims = newTally()
      tally.days.set(day, dims)
    }
    tallyScan(dims, event)
    const last = tally.visitors.get(event.visitorId)
    if (last === undefined || day > last) tally.visitors.set(event.visitorId, day)
  }
  const rollup: Rollup = { scansPerCode: new Map(), daily: [], totals: [], visitors: [] }
  for (const [qr_code_id, tally] of inKeyOrder(codes)) {
    rollup.scansPerCode.set(qr_code_id, tally.scans)
    const days = inKeyOrder(tally.days)
    STORED.forEach((dimension, d) => {
      const total = new Map<string, number>()
      for (const [day, dims] of days)
        for (const [value, count] of inKeyOrder(dims[d] as Map<string, number>)) {
          rollup.daily.push({ qr_code_id, dimension, day, value, count })
          total.set(value, (total.get(value) ?? 0) + count)
        }
      for (const [value, count] of inKeyOrder(total))
        rollup.totals.push({ qr_code_id, dimension, value, count })
    })
    for (const [visitor_id, last_day] of inKeyOrder(tally.visitors))
      rollup.visitors.push({ qr_code_id, visitor_id, last_day })
  }
  return rollup
}
