import type { QrCode } from '@qrctl/sdk'
import { csvLine } from './csv.js'

/** The outcome of one CSV row, as `--out`, piped stdout and `--json` report it. */
export interface RowResult {
  line: number
  name: string
  /** `exists`: uploaded before (its externalId is held by the code `id`), not created again. */
  status: 'created' | 'exists' | 'failed' | 'valid'
  code?: QrCode
  /** The code holding the row's externalId, for `exists`. */
  id?: string
  externalId?: string | undefined
  errors?: string[]
}

export const RESULT_COLUMNS = [
  'line',
  'status',
  'id',
  'name',
  'shortCode',
  'shortUrl',
  'error',
  'externalId',
] as const

export function resultCells(row: RowResult): string[] {
  return [
    String(row.line),
    row.status,
    row.code?.id ?? row.id ?? '',
    row.name,
    row.code?.shortCode ?? '',
    row.code?.shortUrl ?? '',
    (row.errors ?? []).join('; '),
    row.externalId ?? '',
  ]
}

/** `--out results.csv`: a header and one line per CSV row, in file order. */
export function resultsCsv(rows: readonly RowResult[]): string {
  return [csvLine(RESULT_COLUMNS), ...rows.map((row) => csvLine(resultCells(row)))].join('')
}

/** `--json`: totals and every row, created ones with the code as the API returned it. */
export function resultsJson(rows: readonly RowResult[]) {
  return {
    created: rows.filter((r) => r.status === 'created').length,
    existing: rows.filter((r) => r.status === 'exists').length,
    failed: rows.filter((r) => r.status === 'failed').length,
    rows: rows.map(({ line, status, code, id, externalId, errors }) => ({
      line,
      status,
      ...(code ? { code } : {}),
      ...(id ? { id } : {}),
      ...(externalId ? { externalId } : {}),
      ...(errors ? { errors } : {}),
    })),
  }
}

/** `17, 503, 998` or `17, 503, 998 and 40 more`. */
export function lineList(lines: readonly number[], max = 10): string {
  const shown = lines.slice(0, max).join(', ')
  return lines.length > max ? `${shown} and ${lines.length - max} more` : shown
}
