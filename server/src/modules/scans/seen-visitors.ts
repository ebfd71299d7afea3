/**
 * Visitors this process has written, with the day written. A visitor's stored last day only
 * ever moves forward (in every process), so the database holds at least that day: a later
 * scan on the same day changes nothing in the visitor tables and needs no query at all.
 * Bounded; forgetting only costs a lookup.
 */
export class SeenVisitors {
  private readonly days = new Map<string, string>()

  constructor(private readonly max = 100_000) {}

  /** True when the stored last day of this visitor is known to be `day` or later. */
  isCurrent(qrCodeId: string, visitorId: string, day: string): boolean {
    const known = this.days.get(`${qrCodeId}\0${visitorId}`)
    return known !== undefined && known >= day
  }

  /** Call only after the transaction that wrote these days committed. */
  remember(visitors: { qr_code_id: string; visitor_id: string; last_day: string }[]): void {
    for (const v of visitors) {
      if (this.days.size >= this.max) this.days.clear()
      this.days.set(`${v.qr_code_id}\0${v.visitor_id}`, v.last_day)
    }
  }
}
