import { Readable } from 'node:stream'
import { EXPORT_COLUMNS, type ExportQuery } from '@qrctl/contract'
import type { Ctx } from '../../context.js'
import { UNKNOWN } from '../scans/scan-rollup.js'
import { QUARTER_MS } from '../scans/scan-windows.js'
import { resolveCodes } from './analytics.service.js'
import { csvLine } from './csv.js'
import { type ExportRow, exportCodes, exportRows } from './export.repository.js'
import { resolveWindow } from './window.js'
import { offsetMinutes } from './zone.js'

/** Lines per chunk written to the response. */
const CHUNK_LINES = 500

/** `2026-03-10T17:45:00.000+05:45`: the instant in the zone, with the zone's offset then. */
export function zonedIso(timezone: string): (iso: string) => string {
  // Rows come in time order and a zone's offset changes only on a quarter hour: the local
  // minute is worked out once per UTC minute, and the seconds are copied over.
  let minute = ''
  let head = ''
  let suffix = ''
  return (iso) => {
    const key = iso.slice(0, 16)
    if (key !== minute) {
      const ms = Date.parse(`${key}:00.000Z`)
      const minutes = offsetMinutes(Math.floor(ms / QUARTER_MS) * QUARTER_MS, timezone)
      const abs = Math.abs(minutes)
      suffix = `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
      minute = key
      head = new Date(ms + minutes * 60_000).toISOString().slice(0, 16)
    }
    return `${head}${iso.slice(16, 23)}${suffix}`
  }
}

type Code = { shortCode: string | null; name: string }

function toLine(row: ExportRow, code: Code | undefined, format: (iso: string) => string): string {
  return csvLine([
    format(row.scanned_at),
    row.qr_code_id,
    code?.shortCode ?? '',
    code?.name ?? '',
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
 * the first byte; then the rows stream in chunks, each read only when the client has taken the
 * last one (back-pressure), so memory stays flat however many rows there are.
 */
export async function exportScans(ctx: Ctx, accountId: string, query: ExportQuery): Promise<ScanExport> {
  const { qrCodeIds, tag, ...windowQuery } = query
  const { codes, firstInstant } = await resolveCodes(ctx, accountId, qrCodeIds, tag)
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
  const names = await exportCodes(ctx.db, accountId, codes)
  async function* lines(): AsyncGenerator<string> {
    yield csvLine([...EXPORT_COLUMNS])
    let chunk = ''
    let count = 0
    for await (const row of exportRows(ctx.db, ctx.dialect, codes, range)) {
      chunk += toLine(row, names.get(row.qr_code_id), format)
      if (++count < CHUNK_LINES) continue
      yield chunk
      chunk = ''
      count = 0
    }
    if (count > 0) yield chunk
  }
  return {
    filename: `scans-${window.from}-to-${window.to}.csv`,
    body: Readable.from(lines(), { objectMode: false, highWaterMark: 1 }),
  }
}
