import { isHttpUrl } from '@qrctl/contract'

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/**
 * The one escape for user text on the public pages, in element content and in quoted
 * attribute values alike: `&`, `<`, `>`, both quotes.
 * @example escapeHtml('<b>"Hi"</b>') // '&lt;b&gt;&quot;Hi&quot;&lt;/b&gt;'
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ENTITIES[ch] as string)
}

/**
 * A user URL for an `href` or `src`: only absolute http(s) (the contract validated it on the
 * way in; this is the last check before the page), escaped. Anything else is dropped.
 */
export function safeUrl(value: string | null | undefined): string | undefined {
  return value && isHttpUrl(value) ? escapeHtml(value) : undefined
}
