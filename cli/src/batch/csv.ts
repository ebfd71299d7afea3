import { parse } from 'csv-parse/sync'
import { CliError } from '../errors.js'

/** One data row: its line in the file (1-based, where the record starts) and its cells by column. */
export interface CsvRow {
  line: number
  cells: Record<string, string>
  /** Set when the row itself is malformed (wrong number of fields). */
  error?: string
}

/** Offsets where each line starts; CRLF, LF and a lone CR each end a line. */
function lineStarts(buf: Buffer): number[] {
  const starts = [0]
  for (let i = 0; i < buf.length; i++) {
    const byte = buf[i]
    if (byte === 0x0a || (byte === 0x0d && buf[i + 1] !== 0x0a)) starts.push(i + 1)
  }
  return starts
}

/** The 1-based line holding `offset`. */
function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0
  let hi = starts.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if ((starts[mid] ?? 0) <= offset) lo = mid
    else hi = mid - 1
  }
  return lo + 1
}

/** The first offset at or after `from` that is not a line break: where the next record starts. */
function skipBreaks(buf: Buffer, from: number): number {
  let i = from
  while (i < buf.length && (buf[i] === 0x0a || buf[i] === 0x0d)) i++
  return i
}

/**
 * Reads a CSV file with a header row. Line numbers are computed here from byte offsets rather
 * than taken from csv-parse, whose line count drifts on CRLF files with quoted line breaks;
 * a quoted multi-line record is numbered by its first line, as editors show it.
 * `mapHeader` turns each header cell into a column name, or throws.
 */
export function readCsv(
  buf: Buffer,
  mapHeader: (header: string[]) => string[],
): { columns: string[]; rows: CsvRow[] } {
  let records: { record: string[]; info: { bytes: number; error?: Error | undefined } }[]
  try {
    records = parse(buf, {
      bom: true,
      info: true,
      skip_empty_lines: true,
      relax_column_count: true,
    }) as unknown as typeof records
  } catch (error) {
    throw new CliError(`Cannot read the CSV: ${(error as Error).message}`)
  }
  const [header, ...data] = records
  if (!header) throw new CliError('The CSV is empty: it needs a header row such as name,contentType,content')
  const columns = mapHeader(header.record)
  const starts = lineStarts(buf)
  let offset = header.info.bytes
  const rows = data.map(({ record, info }) => {
    const line = lineAt(starts, skipBreaks(buf, offset))
    offset = info.bytes
    const cells: Record<string, string> = {}
    for (const [i, column] of columns.entries()) cells[column] = record[i] ?? ''
    if (record.length !== columns.length)
      return { line, cells, error: `has ${record.length} fields; the header has ${columns.length}` }
    return { line, cells }
  })
  return { columns, rows }
}

/** A CSV cell: quoted when it holds a comma, a quote or a line break. */
export function csvCell(value: string | number | null | undefined): string {
  const text = value === null || value === undefined ? '' : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export function csvLine(cells: readonly (string | number | null | undefined)[]): string {
  return `${cells.map(csvCell).join(',')}\n`
}
