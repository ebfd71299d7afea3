import type { Ctx } from '../../context.js'
import { clearTries, lockTries, setTries } from './redirects.repository.js'

export const MAX_FAILURES = 10
export const LOCKOUT_WINDOW_MS = 15 * 60_000

/**
 * DESIGN §14: after 10 wrong passwords for one code from one client address within 15
 * minutes, every further try is refused until the oldest failure is 15 minutes old; a right
 * password clears the count.
 *
 * Kept in the database, so the count is one across every process that shares it (`WORKERS=N`,
 * several hosts on PostgreSQL): each process counting in its own memory allowed N × 10 tries.
 * A try counts from the moment it begins, before its password is checked, and stays counted
 * unless it was right: a burst of tries cannot slip past the limit while the first ones are
 * still being checked, in any process (the row is locked while a try is counted). The row is
 * keyed by an HMAC of code and address under the visitor secret, never the address, and goes
 * with housekeeping once its newest try is 15 minutes old.
 */
export class PasswordLockout {
  /** `pseudonym`: an HMAC under the visitor secret (the scan recorder's), so no address is stored. */
  constructor(
    private readonly ctx: Pick<Ctx, 'db'>,
    private readonly pseudonym: (text: string) => string,
  ) {}

  key(qrCodeId: string, address: string): string {
    return this.pseudonym(`password-lockout\n${qrCodeId}\n${address}`)
  }

  /**
   * Seconds until a try is allowed again, or 0 when it may go ahead: it is then counted as a
   * failure unless `clear` follows (the password was right).
   */
  begin(key: string, now: number): Promise<number> {
    return this.ctx.db.transaction().execute(async (trx) => {
      const expiresAt = new Date(now + LOCKOUT_WINDOW_MS).toISOString()
      const tries = (await lockTries(trx, key, expiresAt)).filter((t) => t > now - LOCKOUT_WINDOW_MS)
      if (tries.length >= MAX_FAILURES) {
        const oldest = tries[0] as number
        return Math.max(1, Math.ceil((oldest + LOCKOUT_WINDOW_MS - now) / 1000))
      }
      tries.push(now)
      await setTries(trx, key, tries, expiresAt)
      return 0
    })
  }

  /** A right password clears the count (a wrong one stays counted from its `begin`). */
  async clear(key: string): Promise<void> {
    await clearTries(this.ctx.db, key)
  }
}
