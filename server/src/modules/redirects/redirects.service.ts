import { hasActiveSubscription } from '../accounts/accounts.policy.js'
import type { RedirectTarget } from './redirects.repository.js'

export type Resolution =
  | { kind: 'redirect'; qrCodeId: string; location: string }
  | { kind: 'gone' }
  | { kind: 'not_found' }

const SHORT_CODE = /^[0-9A-Za-z]{1,32}$/

/** The short code of `/r/{shortCode}` (query string ignored), or undefined when it cannot be one. */
export function parseShortCode(url: string): string | undefined {
  const end = url.indexOf('?')
  const code = url.slice(3, end === -1 ? undefined : end)
  return SHORT_CODE.test(code) ? code : undefined
}

// Header values must be visible ASCII; URL serialisation percent-encodes the rest.
const NOT_HEADER_SAFE = /[^\x21-\x7e]/

/**
 * DESIGN §7: a live dynamic code of an account with an active subscription redirects;
 * a deleted, paused or unpaid one is gone (410, so a person holding the print learns it was
 * switched off rather than mistyped); anything else is unknown (404).
 */
export function resolveRedirect(target: RedirectTarget | undefined): Resolution {
  if (target?.type !== 'dynamic') return { kind: 'not_found' }
  if (target.isDeleted || !target.isActive || !hasActiveSubscription(target) || !target.targetUrl)
    return { kind: 'gone' }
  const location = NOT_HEADER_SAFE.test(target.targetUrl)
    ? URL.parse(target.targetUrl)?.href
    : target.targetUrl
  if (!location) return { kind: 'gone' }
  return { kind: 'redirect', qrCodeId: target.qrCodeId, location }
}
