import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EXPORT_COLUMNS } from '@qrctl/contract'
import { type ImportReport, importScans } from '@qrctl/server'
import type { TestServer } from '../support/server.js'

export type ScanRow = Partial<Record<(typeof EXPORT_COLUMNS)[number], string>>

/** Quoted as RFC 4180 wants, so a test can put any text in a cell. */
const cell = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value)

export function toCsv(rows: ScanRow[], columns: readonly string[] = EXPORT_COLUMNS): string {
  const lines = [columns.join(',')]
  for (const row of rows) lines.push(columns.map((c) => cell(row[c as keyof ScanRow] ?? '')).join(','))
  return `${lines.join('\r\n')}\r\n`
}

/** Writes the CSV to a temporary file and imports it (what `qrctl-server admin import-scans` does). */
export async function importCsv(
  server: TestServer,
  accountId: string,
  csv: string,
  options: { skipBad?: boolean } = {},
): Promise<ImportReport> {
  const dir = mkdtempSync(join(tmpdir(), 'qrctl-import-'))
  try {
    const file = join(dir, 'scans.csv')
    writeFileSync(file, csv)
    return await importScans(server.ctx, accountId, file, options)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Scans of one code at chosen instants: a mobile visitor per `visitor` (default one per scan). */
export async function scansAt(
  server: TestServer,
  accountId: string,
  qrCodeId: string,
  scans: (string | { at: string; visitor?: string; country?: string; device?: string; referrer?: string })[],
): Promise<void> {
  const rows = scans.map((scan, i) => {
    const s = typeof scan === 'string' ? { at: scan } : scan
    return {
      scannedAt: s.at,
      qrCodeId,
      device: s.device ?? 'mobile',
      country: s.country ?? 'DE',
      referrer: s.referrer ?? 'direct',
      visitorId: s.visitor ?? `visitor-${i}-${s.at}`,
    }
  })
  const report = await importCsv(server, accountId, toCsv(rows))
  if (report.errors.length > 0 || report.imported !== rows.length)
    throw new Error(`import failed: ${JSON.stringify(report)}`)
}
