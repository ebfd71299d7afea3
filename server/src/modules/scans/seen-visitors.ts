/**
 * Visitors this process has written, with the day written. A visitor's stored last day only
 * ever moves forward (in every process), so the database holds at least that day: a later
 * scan on the same day changes nothing in the visitor tables and needs no query at all.
 * Bounded; forgetting only costs a lookup.
 */
export class SeenVisitors {
  /** code → visitor → day (nested, so no key is built per scan). */
  private readonly days = new Map<string, Map<string, string>>()
  private size = 0

  constructor(private readonly max = 100_000) {}

  /** True when the stored last day of this visitor is known to be `day` or later. */
  isCurrent(qrCodeId: string, visitorId: string, day: string): boolean {
    const known = this.days.get(qrCodeId)?.get(visitorId)
    return known !== undefined && known >= day
  }

  /** Call only after the transaction that wrote these days committed. */
  remember(visitors: { qr_code_id: string; visitor_id: string; last_day: string }[]): void {
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
      if (!code.has(v.visitor_id)) this.size++
      code.set(v.visitor_id, v.last_day)
    }
  }
}
