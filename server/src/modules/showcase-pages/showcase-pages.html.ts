import { isCtaUrl, isHttpUrl } from '@qrctl/contract'
import { escapeHtml } from '../../lib/html.js'

/**
 * A user URL for an `href` or `src`: only absolute http(s) (the contract validated it on the
 * way in; this is the last check before the page), escaped. Anything else is dropped.
 */
export function safeUrl(value: string | null | undefined): string | undefined {
  return value && isHttpUrl(value) ? escapeHtml(value) : undefined
}

/** A call-to-action button's link: http(s), or a `tel:`, `mailto:` or `sms:` link (DESIGN §9), escaped. */
export function safeCtaUrl(value: string | null | undefined): string | undefined {
  return value && isCtaUrl(value) ? escapeHtml(value) : undefined
}
