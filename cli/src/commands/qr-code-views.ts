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

/** `qrctl list`: the table on a terminal, and the tab-separated fields (in this order) otherwise. */
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
  { header: 'Style', value: styleSummary },
  { header: 'Created', value: (c) => c.createdAt },
  { header: 'Updated', value: (c) => c.updatedAt },
  { header: 'Image', value: (c) => c.assets.png },
]
