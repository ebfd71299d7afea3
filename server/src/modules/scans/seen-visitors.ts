import type { ScanVisitorDatesTable } from '../../db/schema.js'

/** A visitor's last day this process wrote, and the quarter hours of that day it wrote. */
interface Seen {
  day: string
  /** The first and last quarter hour written for `day` (first > last: none known yet). */
  first: number
  last: number
}

/**
 * Visitors this process has written, with the day written. A visitor's stored last day only
 * ever moves forward (in every process), so the database holds at least that day: a later
 * scan on the same day changes nothing in the visitor tables and needs no query at all.
 *
 * Likewise a visitor-day row's quarter hours only ever widen, so a scan of that day inside the
 * quarters this process wrote for it changes nothing in scan_visitor_dates either: no insert
 * attempt, no update (a visitor scanning again within a few minutes, the common repeat).
 * Bounded; forgetting only costs a lookup.
 */
export class SeenVisitors {
  /** code → visitor → what was written (nested, so no key is built per scan). */
  private readonly days = new Map<string, Map<string, Seen>>()
  private size = 0

  constructor(private readonly max = 100_000) {}

  /** True when the stored last day of this visitor is known to be `day` or later. */
  isCurrent(qrCodeId: string, visitorId: string, day: string): boolean {
    const known = this.days.get(qrCodeId)?.get(visitorId)
    return known !== undefined && known.day >= day
  }

  /** True when the stored row of this visitor and day is known to span these quarter hours already. */
  covers(
    row: Pick<ScanVisitorDatesTable, 'qr_code_id' | 'visitor_id' | 'day' | 'first_quarter' | 'last_quarter'>,
  ) {
    const known = this.days.get(row.qr_code_id)?.get(row.visitor_id)
    return (
      known !== undefined &&
      known.day === row.day &&
      known.first <= row.first_quarter &&
      row.last_quarter <= known.last
    )
  }

  /**
   * Call only after the transaction that wrote these visitors' last days, and these visitor-day
   * rows (any days), committed.
   */
  remember(
    visitors: { qr_code_id: string; visitor_id: string; last_day: string }[],
    dates: Pick<
      ScanVisitorDatesTable,
      'qr_code_id' | 'visitor_id' | 'day' | 'first_quarter' | 'last_quarter'
    >[] = [],
  ): void {
    for (const v of visitors) {
      if (this.size >= this.max) {
        this.days.clear()
        this.size = 0
      }
      let code = this.days.get(v.qr_code_id)
      if (!code) {
        code = new Map()
        this.days.set(v.qr_code_id, code)
      }
      const known = code.get(v.visitor_id)
      if (!known) this.size++
      if (known?.day !== v.last_day) code.set(v.visitor_id, { day: v.last_day, first: 1, last: 0 })
    }
    // The stored row of the last day spans at least what any write to it spanned.
    for (const row of dates) {
      const known = this.days.get(row.qr_code_id)?.get(row.visitor_id)
      if (known?.day !== row.day) continue
      if (known.first > known.last) {
        known.first = row.first_quarter
        known.last = row.last_quarter
      } else {
        known.first = Math.min(known.first, row.first_quarter)
        known.last = Math.max(known.last, row.last_quarter)
      }
    }
  }
}
