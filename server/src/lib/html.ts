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
