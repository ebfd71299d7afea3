import { randomBytes } from 'node:crypto'
import type { ServerResponse } from 'node:http'

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/**
 * The one escape for text the server writes into HTML, in element content and in quoted
 * attribute values alike: `&`, `<`, `>`, both quotes.
 * @example escapeHtml('<b>"Hi"</b>') // '&lt;b&gt;&quot;Hi&quot;&lt;/b&gt;'
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ENTITIES[ch] as string)
}

/**
 * The one document shell of the server's own HTML pages (a short link's answers, the /app
 * sign-in and message pages): language, viewport, `noindex`, the page's one `<style>` (with the
 * response's CSP nonce when it has one) and its `<main>`. `title` is escaped here; `body` and
 * `head` are HTML the caller built.
 */
export function htmlDocument(page: {
  title: string
  style: string
  body: string
  nonce?: string
  head?: string
}): string {
  const nonce = page.nonce === undefined ? '' : ` nonce="${escapeHtml(page.nonce)}"`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(page.title)}</title>
${page.head ?? ''}<style${nonce}>${page.style}</style>
</head>
<body>
<main>
${page.body}</main>
</body>
</html>
`
}

/** How an HTML answer of the server's own is guarded, besides what every one of them gets. */
export interface PagePolicy {
  /** The Content-Security-Policy, given the answer's nonce. */
  csp(nonce: string): string
  referrerPolicy: string
  cacheControl: string
}

/**
 * Sends a page drawn with a fresh CSP nonce (`render` puts it on its `<style>` and scripts):
 * HTML, `policy`'s CSP, referrer and caching rules, and no framing. Used by the showcase
 * pages and /app's own pages, whose policies differ only where the page does.
 */
export function sendPage(
  res: ServerResponse,
  status: number,
  policy: PagePolicy,
  render: (nonce: string) => string,
): void {
  const nonce = randomBytes(16).toString('base64')
  const body = render(nonce)
  res.statusCode = status
  res.setHeader('Content-Type', 'text/html; charset=utf-8')
  res.setHeader('Content-Length', Buffer.byteLength(body))
  res.setHeader('Content-Security-Policy', policy.csp(nonce))
  res.setHeader('X-Frame-Options', 'DENY')
  res.setHeader('Referrer-Policy', policy.referrerPolicy)
  res.setHeader('Cache-Control', policy.cacheControl)
  res.end(body)
}
