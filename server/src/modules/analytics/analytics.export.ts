import { Readable } from 'node:stream'
import { EXPORT_COLUMNS, type ExportQuery } from '@qrctl/contract'
import type { Ctx } from '../../context.js'
import { UNKNOWN } from '../scans/scan-rollup.js'
import { QUARTER_MS } from '../scans/scan-windows.js'
import { resolveCodes } from './analytics.service.js'
import { csvLine } from './csv.js'
import { type ExportRow, scansPage } from './export.repository.js'
import { resolveWindow } from './window.js'
import { offsetMinutes } from './zone.js'

/** Rows per page: large enough that a query's cost vanishes per row, small enough to stay flat in memory. */
const PAGE = 5_000

/** `2026-03-10T17:45:00.000+05:45`: the instant in the zone, with the zone's offset then. */
export function zonedIso(timezone: string): (ms: number) => string {
  // A zone's offset changes only on a quarter hour: one Intl call per quarter hour seen.
  const offsets = new Map<number, string>()
  return (ms) => {
    const quarter = Math.floor(ms / QUARTER_MS)
    let suffix = offsets.get(quarter)
    const minutes = offsetMinutes(quarter * QUARTER_MS, timezone)
    if (suffix === undefined) {
      const abs = Math.abs(minutes)
      suffix = `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
      if (offsets.size > 10_000) offsets.clear()
      offsets.set(quarter, suffix)
    }
    const local = new Date(ms + minutes * 60_000).toISOString()
    return `${local.slice(0, -1)}${suffix}`
  }
}

function toLine(row: ExportRow, format: (ms: number) => string): string {
  return csvLine([
    format(Date.parse(row.scanned_at)),
    row.qr_code_id,
    row.short_code ?? '',
    row.name,
    row.device,
    row.browser ?? UNKNOWN,
    row.os ?? UNKNOWN,
    row.country ?? UNKNOWN,
    row.city ?? UNKNOWN,
    row.referrer ?? UNKNOWN,
    row.visitor_id,
  ])
}

export interface ScanExport {
  filename: string
  body: Readable
}

/**
 * `GET /analytics/export` (DESIGN §16). Everything a client can get wrong is checked before
 * the first byte; then the rows stream page by page, each page read only when the client has
 * taken the last one (back-pressure), so memory stays flat however many rows there are.
 */
export async function exportScans(ctx: Ctx, accountId: string, query: ExportQuery): Promise<ScanExport> {
  const { qrCodeIds, ...windowQuery } = query
  const { codes, firstInstant } = await resolveCodes(ctx, accountId, qrCodeIds)
  const { window } = resolveWindow(windowQuery, {
    now: ctx.clock.now().getTime(),
    firstInstant,
    defaultPeriod: '30d',
  })
  const range = {
    from: new Date(window.starts[0] as number).toISOString(),
    to: new Date(window.starts[window.starts.length - 1] as number).toISOString(),
  }
  const format = zonedIso(window.timezone)
  async function* lines(): AsyncGenerator<string> {
    yield csvLine([...EXPORT_COLUMNS])
    let after: { at: string; id: number | string } | null = null
    for (;;) {
      const rows = await scansPage(ctx.db, accountId, codes, range, after, PAGE)
      if (rows.length === 0) return
      let chunk = ''
      for (const row of rows) chunk += toLine(row, format)
      yield chunk
      const last = rows[rows.length - 1] as ExportRow
      if (rows.length < PAGE) return
      after = { at: last.scanned_at, id: last.id }
    }
  }
  return {
    filename: `scans-${window.from}-to-${window.to}.csv`,
    body: Readable.from(lines(), { objectMode: false, highWaterMark: 1 }),
  }
}
