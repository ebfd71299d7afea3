import type { CreateQrCodeParams } from '@qrctl/sdk'

/** One record of a CSV file and the line it starts on (the header is line 1). */
export interface CsvRecord {
  line: number
  cells: string[]
}

/**
 * RFC 4180 CSV: quoted fields may hold commas, quotes (`""`) and line breaks; LF or CRLF line
 * ends; a byte-order mark is dropped. Blank lines are skipped.
 */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = []
  let cells: string[] = []
  let cell = ''
  let quoted = false
  let line = 1
  let start = 1
  let sawAny = false
  const source = text.replace(/^\uFEFF/, '')
  const endRecord = () => {
    cells.push(cell)
    if (sawAny || cells.length > 1 || cell !== '') records.push({ line: start, cells })
    cells = []
    cell = ''
    sawAny = false
  }
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]
    if (quoted) {
      if (ch === '"') {
        if (source[i + 1] === '"') {
          cell += '"'
          i++
        } else quoted = false
      } else {
        if (ch === '\n') line++
        cell += ch
      }
      continue
    }
    if (ch === '"' && cell === '') {
      quoted = true
      sawAny = true
    } else if (ch === ',') {
      cells.push(cell)
      cell = ''
      sawAny = true
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && source[i + 1] === '\n') i++
      endRecord()
      line++
      start = line
    } else cell += ch
  }
  if (cell !== '' || cells.length > 0 || sawAny) endRecord()
  return records
}

/** Header names as people write them: `contentType`, `content_type`, `Content Type` are one. */
function squash(name: string): string {
  return name.toLowerCase().replace(/[\s_-]/g, '')
}

const COLUMNS = [
  'name',
  'contentType',
  'content',
  'type',
  'targetUrl',
  'externalId',
  'tags',
  'foregroundColor',
  'backgroundColor',
  'errorCorrectionLevel',
  'margin',
] as const
type Column = (typeof COLUMNS)[number]
const STYLE_COLUMNS = new Set<Column>([
  'foregroundColor',
  'backgroundColor',
  'errorCorrectionLevel',
  'margin',
])
const REQUIRED: Column[] = ['name', 'contentType', 'content']

export interface CsvRow {
  line: number
  input: CreateQrCodeParams
}

/** The rows of a code CSV (the CLI's `qrctl batch` format), or an error about the file as a whole. */
export function readCodeCsv(text: string): { rows: CsvRow[] } | { error: string } {
  const records = parseCsv(text)
  const [header, ...body] = records
  if (!header) return { error: 'The file is empty: it needs a header row and at least one code.' }
  const bySquashed = new Map(COLUMNS.map((column) => [squash(column), column]))
  const columns: Column[] = []
  for (const cell of header.cells) {
    const column = bySquashed.get(squash(cell))
    if (!column) return { error: `Unknown column “${cell}”. Columns: ${COLUMNS.join(', ')}.` }
    if (columns.includes(column)) return { error: `The header names the column “${cell}” twice.` }
    columns.push(column)
  }
  const missing = REQUIRED.filter((column) => !columns.includes(column))
  if (missing.length > 0)
    return { error: `The header lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.` }
  if (body.length === 0) return { error: 'The file has a header but no codes.' }
  const rows = body.map((record) => {
    const input: Record<string, unknown> = {}
    const style: Record<string, unknown> = {}
    columns.forEach((column, i) => {
      const raw = record.cells[i] ?? ''
      const value = column === 'content' || column === 'name' ? raw : raw.trim()
      if (value === '') return
      if (column === 'tags')
        input.tags = value
          .split(';')
          .map((t) => t.trim())
          .filter(Boolean)
      else if (column === 'margin') style.margin = Number(value)
      else if (STYLE_COLUMNS.has(column)) style[column] = value
      else input[column] = value
    })
    if (Object.keys(style).length > 0) input.style = style
    return { line: record.line, input: input as unknown as CreateQrCodeParams }
  })
  return { rows }
}
