import { Readable } from 'node:stream'
import { EXPORT_COLUMNS, type ExportQuery } from '@qrctl/contract'
import type { Ctx } from '../../context.js'
import { UNKNOWN } from '../scans/scan-rollup.js'
import { resolveCodes } from './analytics.service.js'
import { csvCell, csvLine } from './csv.js'
import { type ExportRow, exportBatches, exportCodes } from './export.repository.js'
import type { ExportSlots } from './export-slots.js'
import { resolveWindow } from './window.js'
import { offsetMinutes } from './zone.js'

const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'))

/** `+05:45` */
function offsetSuffix(minutes: number): string {
  const abs = Math.abs(minutes)
  const hours = String(Math.floor(abs / 60)).padStart(2, '0')
  return `${minutes < 0 ? '-' : '+'}${hours}:${String(abs % 60).padStart(2, '0')}`
}

const DAY_MS = 86_400_000
const QUARTER_MS = 900_000

/**
 * The zone's offset at the start of a UTC quarter hour. A zone changes its offset at most once
 * a day (as `dayStarts` assumes), so when the offsets at a UTC day's first and last quarter hour
 * agree, they hold all day: two Intl calls a day instead of 96.
 */
function quarterOffsets(timezone: string): (start: number) => number {
  let day = Number.NaN
  let wholeDay: number | undefined
  return (start) => {
    const d = Math.floor(start / DAY_MS)
    if (d !== day) {
      day = d
      const first = offsetMinutes(d * DAY_MS, timezone)
      wholeDay = first === offsetMinutes((d + 1) * DAY_MS - QUARTER_MS, timezone) ? first : undefined
    }
    return wholeDay ?? offsetMinutes(start, timezone)
  }
}

/**
 * `2026-03-10T17:45:00.000+05:45`: the instant (an ISO string in UTC, as stored) in the zone,
 * with the zone's offset then.
 */
export function zonedIso(timezone: string): (iso: string) => string {
  // Rows come in time order and a zone's offset changes only on a quarter hour, so the offset
  // is worked out once per UTC quarter hour (Intl takes a few µs a call: asked once a minute, it
  // was a fifth of the export's CPU at a million scans a year). Offsets are whole quarter hours too,
  // so within a UTC quarter hour the local minute is the local quarter's first minute plus the
  // UTC minute's place in its quarter: no Date per minute. An offset that is not a whole
  // quarter hour (local mean time, before 1900 or so) takes the long way every minute.
  let minute = '\0'
  let head = ''
  let quarter = '\0'
  let localHour = ''
  let localMinute = 0
  let suffix = ''
  const offsetAt = quarterOffsets(timezone)
  return (iso) => {
    if (iso.startsWith(minute)) return `${head}${iso.slice(16, 23)}${suffix}`
    minute = iso.slice(0, 16)
    const utcMinute = (iso.charCodeAt(14) - 48) * 10 + (iso.charCodeAt(15) - 48)
    const inQuarter = utcMinute % 15
    const key = `${iso.slice(0, 13)}${utcMinute - inQuarter}`
    if (key !== quarter) {
      const start = Date.parse(`${minute}:00.000Z`) - inQuarter * 60_000
      const offset = offsetAt(start)
      const local = new Date(start + offset * 60_000).toISOString()
      suffix = offsetSuffix(offset)
      localHour = local.slice(0, 14)
      localMinute = Number(local.slice(14, 16))
      // The long way: this minute from its own Date, and the next minute asks again.
      quarter = offset % 15 === 0 ? key : '\0'
      if (quarter === '\0') {
        head = new Date(start + (inQuarter + offset) * 60_000).toISOString().slice(0, 16)
        return `${head}${iso.slice(16, 23)}${suffix}`
      }
    }
    head = `${localHour}${TWO_DIGITS[localMinute + inQuarter]}`
    return `${head}${iso.slice(16, 23)}${suffix}`
  }
}

type Code = { shortCode: string | null; name: string }

/** A cell for a value that may be missing (`Unknown`, DESIGN §16). */
const known = (value: string | null) => (value === null ? UNKNOWN : csvCell(value))

/**
 * One CSV line per row. The code's cells (id, short code, name) are quoted once per code, not
 * once per row.
 */
function lineMaker(names: Map<string, Code>, timezone: string): (row: ExportRow) => string {
  const format = zonedIso(timezone)
  const codeCells = new Map<string, string>()
  const cellsOf = (id: string) => {
    let cells = codeCells.get(id)
    if (cells === undefined) {
      const code = names.get(id)
      cells = `${csvCell(id)},${csvCell(code?.shortCode ?? '')},${csvCell(code?.name ?? '')}`
      codeCells.set(id, cells)
    }
    return cells
  }
  return (row) =>
    `${csvCell(format(row.scanned_at))},${cellsOf(row.qr_code_id)},${csvCell(row.device)},${known(row.browser)},${known(row.os)},${known(row.country)},${known(row.city)},${known(row.referrer)},${csvCell(row.visitor_id)}\r\n`
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
export async function exportScans(
  ctx: Ctx,
  slots: ExportSlots,
  accountId: string,
  query: ExportQuery,
): Promise<ScanExport> {
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
  const line = lineMaker(await exportCodes(ctx.db, accountId, codes), window.timezone)
  // Taken last, once nothing but the download can fail; given back when the body closes:
  // at its end, on an error, or when the client leaves.
  const release = slots.take()
  // One chunk per batch read: one write to the socket per few hundred rows.
  async function* chunks(): AsyncGenerator<string> {
    yield csvLine([...EXPORT_COLUMNS])
    for await (const rows of exportBatches(ctx.db, ctx.dialect, codes, range)) {
      let chunk = ''
      for (const row of rows) chunk += line(row)
      yield chunk
    }
  }
  const body = Readable.from(chunks(), { objectMode: false, highWaterMark: 1 })
  body.once('close', release)
  return { filename: `scans-${window.from}-to-${window.to}.csv`, body }
}
