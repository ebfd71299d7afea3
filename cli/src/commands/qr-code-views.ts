import type { QrCode } from '@qrctl/sdk'
import { type Column, shortTime } from '../output.js'

function styleSummary(code: QrCode): string {
  const s = code.style
  if (!s) return 'default'
  const parts = [
    s.foregroundColor || s.backgroundColor
      ? `${s.foregroundColor ?? '#000000'} on ${s.backgroundColor ?? '#FFFFFF'}`
      : undefined,
    s.errorCorrectionLevel ? `level ${s.errorCorrectionLevel}` : undefined,
    s.margin === undefined ? undefined : `margin ${s.margin}`,
  ]
  return parts.filter(Boolean).join(', ') || 'default'
}

/** DESIGN §14 in one line: `2 rules, expires 2026-12-31T22:59:59.000Z, 12/500 scans … , password`. */
function redirectSummary(c: QrCode): string {
  const parts = [
    c.rules ? `${c.rules.length} rule${c.rules.length === 1 ? '' : 's'}` : undefined,
    c.expiresAt ? `expires ${c.expiresAt}${c.expiredUrl ? ` → ${bareUrl(c.expiredUrl)}` : ''}` : undefined,
    c.maxScans === null
      ? undefined
      : `at most ${c.maxScans} scans${c.afterLimitUrl ? ` → ${bareUrl(c.afterLimitUrl)}` : ''}`,
    c.hasPassword ? 'password' : undefined,
    c.utm
      ? `utm ${Object.entries(c.utm)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')}`
      : undefined,
    c.forwardQuery ? 'forwards the query' : undefined,
  ]
  return parts.filter(Boolean).join(', ') || '-'
}

/** A URL as people read it in a table: `https://` is implied, `http://` is kept. */
function bareUrl(url: string): string {
  return url.replace(/^https:\/\//i, '')
}

/** Where a code leads: a dynamic code's target URL, a static code's content. */
function destination(c: QrCode): string {
  return c.targetUrl ? bareUrl(c.targetUrl) : c.content
}

/**
 * `qrctl list` on a terminal. Fits 80 columns: the id is never cut; optional columns go
 * first; then the name shrinks, and the destination last and from the middle, so a URL keeps
 * its host and its tail. The short code stands for the short URL (`qrctl get` shows it whole).
 */
export const QR_CODE_TABLE: Column<QrCode>[] = [
  { header: 'ID', value: (c) => c.id },
  { header: 'NAME', value: (c) => c.name, shrink: true },
  { header: 'TYPE', value: (c) => c.type, dropOrder: 4 },
  { header: 'CODE', value: (c) => c.shortCode ?? '-' },
  { header: 'TARGET / CONTENT', value: destination, shrink: true, minWidth: 22, ellipsis: 'middle' },
  { header: 'SCANS', value: (c) => String(c.totalScans), dropOrder: 1 },
  {
    header: 'ACTIVE',
    value: (c) => (c.isActive ? 'yes' : 'no'),
    style: (text, color, c) => (c.isActive ? text : color.yellow(text)),
    dropOrder: 3,
  },
  { header: 'CREATED', value: (c) => c.createdAt, display: (c) => shortTime(c.createdAt), dropOrder: 2 },
]

/** `qrctl list --deleted` on a terminal: when each code was deleted and will be purged. */
export const DELETED_QR_CODE_TABLE: Column<QrCode>[] = [
  ...QR_CODE_TABLE.filter((c) => c.header !== 'CREATED' && c.header !== 'ACTIVE'),
  { header: 'DELETED', value: (c) => shortTime(c.deletedAt ?? null) },
  { header: 'PURGED', value: (c) => shortTime(c.purgeAt ?? null), dropOrder: 5 },
]

/**
 * The tab-separated fields, in this order, when piped (and of `qrctl get` piped). New fields
 * are appended, so `cut -f` scripts keep working.
 */
export const QR_CODE_COLUMNS: Column<QrCode>[] = [
  { header: 'ID', value: (c) => c.id },
  { header: 'NAME', value: (c) => c.name, shrink: true },
  { header: 'TYPE', value: (c) => c.type },
  { header: 'CONTENT TYPE', value: (c) => c.contentType, dropOrder: 3 },
  { header: 'CONTENT', value: (c) => c.content, shrink: true },
  { header: 'SHORT URL', value: (c) => c.shortUrl ?? '', display: (c) => c.shortUrl ?? '-' },
  { header: 'SCANS', value: (c) => String(c.totalScans), dropOrder: 1 },
  {
    header: 'ACTIVE',
    value: (c) => String(c.isActive),
    display: (c) => (c.isActive ? 'yes' : 'no'),
    style: (text, color, c) => (c.isActive ? text : color.yellow(text)),
  },
  { header: 'CREATED', value: (c) => c.createdAt, display: (c) => shortTime(c.createdAt), dropOrder: 2 },
  { header: 'TARGET URL', value: (c) => c.targetUrl ?? '' },
  { header: 'EXTERNAL ID', value: (c) => c.externalId ?? '' },
]

/** Piped `qrctl list --deleted`: the same fields, then deletedAt and purgeAt. */
export const DELETED_QR_CODE_COLUMNS: Column<QrCode>[] = [
  ...QR_CODE_COLUMNS,
  { header: 'DELETED', value: (c) => c.deletedAt ?? '' },
  { header: 'PURGED', value: (c) => c.purgeAt ?? '' },
]

/** `qrctl get` on a terminal. */
export const QR_CODE_FIELDS: Column<QrCode>[] = [
  { header: 'ID', value: (c) => c.id },
  { header: 'Name', value: (c) => c.name, style: (text, color) => color.bold(text) },
  { header: 'Type', value: (c) => c.type },
  { header: 'Content type', value: (c) => c.contentType },
  { header: 'Content', value: (c) => c.content },
  { header: 'Target URL', value: (c) => c.targetUrl ?? '-' },
  { header: 'Short URL', value: (c) => c.shortUrl ?? '-', style: (text, color) => color.cyan(text) },
  {
    header: 'Active',
    value: (c) => (c.isActive ? 'yes' : 'no'),
    style: (text, color, c) => (c.isActive ? color.green(text) : color.yellow(text)),
  },
  { header: 'Scans', value: (c) => String(c.totalScans) },
  { header: 'External ID', value: (c) => c.externalId ?? '-' },
  { header: 'Tags', value: (c) => (c.tags.length > 0 ? c.tags.join(', ') : '-') },
  { header: 'Style', value: styleSummary },
  { header: 'Redirects', value: redirectSummary },
  { header: 'Created', value: (c) => c.createdAt },
  { header: 'Updated', value: (c) => c.updatedAt },
  { header: 'Image', value: (c) => c.assets.png },
]
