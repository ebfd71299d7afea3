import { hasActiveSubscription } from '../accounts/accounts.policy.js'
import { headerSafe, withParameters } from './destination.js'
import type { RedirectTarget } from './redirects.repository.js'
import { matchRules } from './rules.js'
import type { ScanFacts } from './scan-facts.js'

export type GoneReason = 'inactive' | 'expired' | 'limit'

export type Resolution =
  /** `reserve`: the redirect goes to the code's own destination and uses up one of `maxScans`. */
  | { kind: 'redirect'; qrCodeId: string; location: string; reserve: boolean }
  | { kind: 'gone'; reason: GoneReason }
  | { kind: 'password'; qrCodeId: string }
  | { kind: 'not_found' }

const SHORT_CODE = /^[0-9A-Za-z]{1,32}$/

/** The short code of `/r/{shortCode}` (query string ignored), or undefined when it cannot be one. */
export function parseShortCode(url: string): string | undefined {
  const end = url.indexOf('?')
  const code = url.slice(3, end === -1 ? undefined : end)
  return SHORT_CODE.test(code) ? code : undefined
}

/** Where a scan goes instead of the code's own destinations, or the 410 page's reason. */
function fallback(qrCodeId: string, url: string | null, reason: GoneReason): Resolution {
  const location = url && headerSafe(url)
  return location ? { kind: 'redirect', qrCodeId, location, reserve: false } : { kind: 'gone', reason }
}

/** Once the limit is used up: `afterLimitUrl`, or the 410 page "reached its scan limit". */
export function afterLimit(target: RedirectTarget): Resolution {
  return fallback(target.qrCodeId, target.afterLimitUrl, 'limit')
}

export function isLimitReached(target: RedirectTarget): boolean {
  return target.maxScans !== null && target.scansReserved >= target.maxScans
}

/**
 * DESIGN §7 and §14, in this order: unknown → 404; deleted, paused or unpaid → 410; expired
 * → `expiredUrl` or 410; scan limit used up → `afterLimitUrl` or 410; a password not yet given
 * → the password page; then the first rule that holds, else `targetUrl`, with `utm` and the
 * forwarded query added. No write here: the caller makes the one reservation `reserve` asks for.
 */
export function resolveRedirect(
  target: RedirectTarget | undefined,
  facts: ScanFacts,
  passwordGiven = false,
): Resolution {
  if (target?.type !== 'dynamic') return { kind: 'not_found' }
  if (target.isDeleted || !target.isActive || !hasActiveSubscription(target) || !target.targetUrl)
    return { kind: 'gone', reason: 'inactive' }
  if (target.expiresAtMs !== null && facts.now.getTime() >= target.expiresAtMs)
    return fallback(target.qrCodeId, target.expiredUrl, 'expired')
  if (isLimitReached(target)) return afterLimit(target)
  if (target.passwordHash !== null && !passwordGiven) return { kind: 'password', qrCodeId: target.qrCodeId }
  const destination = matchRules(target.rules, facts) ?? target.targetUrl
  const location =
    target.utm || target.forwardQuery
      ? withParameters(destination, target.utm, target.forwardQuery ? facts.query() : null)
      : headerSafe(destination)
  if (!location) return { kind: 'gone', reason: 'inactive' }
  return { kind: 'redirect', qrCodeId: target.qrCodeId, location, reserve: target.maxScans !== null }
}
