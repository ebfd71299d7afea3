import { createHash } from 'node:crypto'

export const MAX_FAILURES = 10
export const LOCKOUT_WINDOW_MS = 15 * 60_000
const MAX_ENTRIES = 100_000

interface Entry {
  /** Times of wrong passwords within the window, oldest first. */
  failures: number[]
  /** Tries being checked now; counted as failures until they are known, so a burst cannot slip past. */
  checking: number
}

/**
 * DESIGN §14: after 10 wrong passwords for one code from one client address within 15
 * minutes, every further try is refused until the oldest failure is 15 minutes old; a right
 * password clears the count. Kept in this process's memory under a hash of code and address
 * (never the address itself).
 */
export class PasswordLockout {
  private readonly entries = new Map<string, Entry>()

  key(qrCodeId: string, address: string): string {
    return createHash('sha256').update(`${qrCodeId}\n${address}`).digest('base64url')
  }

  /** Seconds until a try is allowed again, or 0 when it may go ahead (then `settle` must follow). */
  begin(key: string, now: number): number {
    const entry = this.entries.get(key) ?? { failures: [], checking: 0 }
    while (entry.failures.length > 0 && (entry.failures[0] as number) <= now - LOCKOUT_WINDOW_MS)
      entry.failures.shift()
    if (entry.failures.length + entry.checking >= MAX_FAILURES) {
      const oldest = entry.failures[0] ?? now
      return Math.max(1, Math.ceil((oldest + LOCKOUT_WINDOW_MS - now) / 1000))
    }
    entry.checking++
    if (!this.entries.has(key)) {
      if (this.entries.size >= MAX_ENTRIES) this.prune(now)
      this.entries.set(key, entry)
    }
    return 0
  }

  /** The outcome of a try `begin` let through. */
  settle(key: string, right: boolean, now: number): void {
    const entry = this.entries.get(key)
    if (!entry) return
    entry.checking = Math.max(0, entry.checking - 1)
    if (right) entry.failures = []
    else entry.failures.push(now)
    if (entry.failures.length === 0 && entry.checking === 0) this.entries.delete(key)
  }

  private prune(now: number): void {
    for (const [key, entry] of this.entries) {
      const last = entry.failures.at(-1)
      if (entry.checking === 0 && (last === undefined || last <= now - LOCKOUT_WINDOW_MS))
        this.entries.delete(key)
    }
    // Still full: the oldest entries go (an attacker filling memory unlocks only themselves).
    for (const key of this.entries.keys()) {
      if (this.entries.size < MAX_ENTRIES) break
      this.entries.delete(key)
    }
  }
}
