import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { pipeline } from 'node:stream/promises'
import { EXPORT_COLUMNS } from '@qrctl/contract'
import { parse } from 'csv-parse'
import type { Ctx } from '../../context.js'
import { notFound } from '../../errors.js'
import { findAccount } from '../accounts/accounts.repository.js'
import { DEVICES, type Device } from '../scans/scan-details.js'
import type { ScanEvent } from '../scans/scan-event.js'
import { UNKNOWN } from '../scans/scan-rollup.js'
import { findWriterPosition, IMPORT_WRITER_PREFIX } from '../scans/scans.repository.js'
import { type BatchPosition, writeScans } from '../scans/scans.service.js'
import { uncell } from './csv.js'
import { findImportTargets } from './import.repository.js'

/** Scans per write: one transaction each, like a large redirect batch. */
const BATCH = 2_000
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/
const MAX_TEXT = 512

export interface ImportReport {
  imported: number
  /** Scans of the file an earlier run of it into this account stored already, not stored again. */
  alreadyImported: number
  /** Bad rows, by line number of the file (the header is line 1). */
  errors: { line: number; message: string }[]
}

interface Targets {
  byId: Map<string, string>
  byShortCode: Map<string, string>
}

type Column = (typeof EXPORT_COLUMNS)[number]
type Row = Partial<Record<Column, string>>

function optional(value: string | undefined): string | null {
  if (value === undefined) return null
  const text = uncell(value)
  return text === '' || text === UNKNOWN ? null : text
}

/** One row as a scan, or the reason it is not one. */
function toEvent(row: Row, targets: Targets): ScanEvent | string {
  const id = row.qrCodeId?.trim()
  const shortCode = row.shortCode?.trim()
  const qrCodeId =
    (id && targets.byId.get(id)) || (shortCode && targets.byShortCode.get(shortCode)) || undefined
  if (!qrCodeId)
    return `no dynamic code of this account has qrCodeId ${id || '(empty)'} or shortCode ${shortCode || '(empty)'}`
  const at = uncell(row.scannedAt ?? '').trim()
  const ms = ISO_INSTANT.test(at) ? Date.parse(at) : Number.NaN
  if (Number.isNaN(ms))
    return `scannedAt: expected an ISO 8601 instant with an offset, e.g. 2026-03-10T17:45:00.000+05:45, got "${at}"`
  const device = uncell(row.device ?? '').trim()
  if (!DEVICES.includes(device as Device))
    return `device: expected one of ${DEVICES.join(', ')}, got "${device}"`
  const visitorId = (row.visitorId ?? '').trim()
  if (visitorId === '' || visitorId.length > 128) return 'visitorId: expected 1–128 characters'
  const fields = {
    browser: row.browser,
    os: row.os,
    country: row.country,
    city: row.city,
    referrer: row.referrer,
  }
  for (const [name, value] of Object.entries(fields)) {
    if ((value ?? '').length > MAX_TEXT) return `${name}: at most ${MAX_TEXT} characters`
    if (value?.includes('\0')) return `${name}: must not contain NUL`
  }
  return {
    qrCodeId,
    scannedAt: new Date(ms).toISOString(),
    visitorId,
    device: device as Device,
    browser: optional(row.browser),
    os: optional(row.os),
    country: optional(row.country),
    city: optional(row.city),
    referrer: optional(row.referrer),
  }
}

/** The file's rows with their line numbers; the header must name the export's columns. */
async function* rowsOf(
  file: string,
): AsyncGenerator<{ line: number; row: Row } | { line: number; error: string }> {
  const parser = createReadStream(file).pipe(
    parse({ columns: true, bom: true, relax_column_count: false, skip_empty_lines: true, info: true }),
  )
  let checked = false
  try {
    for await (const record of parser as AsyncIterable<{ record: Row; info: { lines: number } }>) {
      if (!checked) {
        const names = Object.keys(record.record)
        const unknown = names.filter((n) => !(EXPORT_COLUMNS as readonly string[]).includes(n))
        if (unknown.length > 0)
          throw new Error(
            `line 1: unknown column ${unknown.join(', ')}; expected ${EXPORT_COLUMNS.join(',')}`,
          )
        for (const needed of ['scannedAt', 'device', 'visitorId'] as const)
          if (!names.includes(needed)) throw new Error(`line 1: the header has no ${needed} column`)
        if (!names.includes('qrCodeId') && !names.includes('shortCode'))
          throw new Error('line 1: the header needs a qrCodeId or a shortCode column')
        checked = true
      }
      yield { line: record.info.lines, row: record.record }
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const line = /line (\d+)/.exec(message)?.[1]
    yield { line: line ? Number(line) : 0, error: message }
  }
}

/**
 * `qrctl-server admin import-scans` (DESIGN §16): reads the export's format back and adds the
 * scans to every count and rollup as if they had happened at `scannedAt`, through the same
 * write as the redirect's batches. A first pass checks every row; unless `skipBad`, a file
 * with a bad row imports nothing. Rows match codes by `qrCodeId`, else by `shortCode`.
 * Running the same file into the same account again stores only what earlier runs did not.
 */
export async function importScans(
  ctx: Ctx,
  accountId: string,
  file: string,
  options: { skipBad?: boolean } = {},
): Promise<ImportReport> {
  if (!(await findAccount(ctx.db, accountId))) throw notFound('account', accountId)
  const found = await findImportTargets(ctx.db, accountId)
  const targets: Targets = { byId: new Map(), byShortCode: new Map() }
  for (const code of found) {
    targets.byId.set(code.id, code.id)
    if (code.shortCode) targets.byShortCode.set(code.shortCode, code.id)
  }
  const errors: ImportReport['errors'] = []
  // A file that is not CSV of the export's shape (bad header, broken quoting, a row with
  // another number of cells) imports nothing, --skip-bad or not: its rows cannot be trusted.
  let fatal = false
  for await (const item of rowsOf(file)) {
    if ('error' in item) {
      fatal = true
      errors.push({ line: item.line, message: item.error })
    } else {
      const event = toEvent(item.row, targets)
      if (typeof event === 'string') errors.push({ line: item.line, message: event })
    }
  }
  if (fatal || (errors.length > 0 && !options.skipBad)) return { imported: 0, alreadyImported: 0, errors }
  // The file's scans are numbered in order under an id of the account and the file's content,
  // as a scan buffer numbers its own: each batch's transaction skips what a run of this file
  // stored before, so a run that was cut off (killed, the database lost, a COMMIT whose answer
  // never came) is finished by running the same command again, and no scan is stored twice.
  const writerId = `${IMPORT_WRITER_PREFIX}${accountId}:${await digestOf(file)}`
  const storedBefore = (await findWriterPosition(ctx.db, writerId)) + 1
  let imported = 0
  let count = 0
  let batch: ScanEvent[] = []
  const write = async () => {
    const position: BatchPosition = { writerId, firstSeq: count, at: ctx.clock.now().toISOString() }
    count += batch.length
    imported += await writeScans(ctx, batch, undefined, undefined, position)
    batch = []
  }
  for await (const item of rowsOf(file)) {
    if ('error' in item) break
    const event = toEvent(item.row, targets)
    if (typeof event === 'string') continue
    batch.push(event)
    if (batch.length >= BATCH) await write()
  }
  await write()
  return { imported, alreadyImported: Math.min(storedBefore, count), errors }
}

/** SHA-256 of the file's bytes: the same file is the same import. */
async function digestOf(file: string): Promise<string> {
  const hash = createHash('sha256')
  await pipeline(createReadStream(file), hash)
  return hash.digest('base64url')
}
