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
