import type { CreateQrCodeParams } from '@qrctl/sdk'
import { CliError } from '../errors.js'
import { loadContract, loadRender } from '../lazy.js'
import type { CsvRow } from './csv.js'

export interface RowIssue {
  /** The CSV column (or `row` for the row as a whole). */
  field: string
  message: string
}

export type CheckedRow =
  | { line: number; ok: true; input: CreateQrCodeParams }
  | { line: number; ok: false; issues: RowIssue[] }

/** Column names as written in a header: `contentType`, `content_type`, `Content Type` are one column. */
function squash(name: string): string {
  return name.toLowerCase().replace(/[\s_-]/g, '')
}

/** Columns that hold a keyword or a number: surrounding spaces there are CSV noise, not data. */
const TRIMMED = new Set([
  'contentType',
  'type',
  'foregroundColor',
  'backgroundColor',
  'errorCorrectionLevel',
  'margin',
])

/**
 * The CSV columns, taken from the contract (CreateQrCode's fields with `style` flattened into
 * its own fields), so a new contract field is a new column with no change here.
 */
export async function batchColumns() {
  const { CreateQrCode, Style } = await loadContract()
  const top = Object.keys(CreateQrCode.innerType().shape).filter((key) => key !== 'style')
  const style = Object.keys(Style.innerType().shape)
  return { top, style, all: [...top, ...style] }
}

/** Maps header cells to contract field names; unknown, duplicate or missing columns stop the run. */
export function headerMapper(known: readonly string[], required: readonly string[]) {
  const bySquashed = new Map(known.map((name) => [squash(name), name]))
  return (header: string[]): string[] => {
    const columns = header.map((cell) => {
      const name = bySquashed.get(squash(cell))
      if (!name)
        throw new CliError(`Unknown CSV column '${cell}'`, {
          hint: `Columns are contract field names: ${known.join(', ')} (snake_case works too).`,
        })
      return name
    })
    const duplicate = columns.find((c, i) => columns.indexOf(c) !== i)
    if (duplicate) throw new CliError(`The CSV header names the column '${duplicate}' twice`)
    const missing = required.filter((r) => !columns.includes(r))
    if (missing.length > 0)
      throw new CliError(
        `The CSV header lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
        {
          hint: 'Required: name, contentType, content. Optional: type, targetUrl and the style columns.',
        },
      )
    return columns
  }
}

/** A row as the API body: empty cells are left out, style columns gathered into `style`. */
function toInput(
  cells: Record<string, string>,
  columns: { top: readonly string[]; style: readonly string[] },
): { input: Record<string, unknown>; issues: RowIssue[] } {
  const input: Record<string, unknown> = {}
  const style: Record<string, unknown> = {}
  const issues: RowIssue[] = []
  const cell = (name: string) => {
    const raw = cells[name] ?? ''
    return TRIMMED.has(name) ? raw.trim() : raw
  }
  for (const name of columns.top) if (cell(name) !== '') input[name] = cell(name)
  for (const name of columns.style) {
    const value = cell(name)
    if (value === '') continue
    if (name === 'margin') {
      if (/^\d+$/.test(value)) style[name] = Number(value)
      else issues.push({ field: name, message: 'Must be a whole number 0–16' })
    } else style[name] = value
  }
  if (Object.keys(style).length > 0) input.style = style
  return { input, issues }
}

/**
 * Checks every row as the server will: the contract's CreateQrCode schema (fields, content per
 * type, style and contrast, static vs dynamic), then, for static codes, the symbol capacity.
 */
export async function checkRows(
  rows: readonly CsvRow[],
  columns: { top: readonly string[]; style: readonly string[] },
): Promise<CheckedRow[]> {
  const { CreateQrCode, encodePayload, resolveType } = await loadContract()
  const { checkCapacity } = await loadRender()
  return rows.map((row): CheckedRow => {
    if (row.error) return { line: row.line, ok: false, issues: [{ field: 'row', message: row.error }] }
    const { input, issues } = toInput(row.cells, columns)
    const parsed = CreateQrCode.safeParse(input)
    if (!parsed.success || issues.length > 0) {
      const found = (parsed.error?.issues ?? []).map((issue) => ({
        // style.margin is the CSV's margin column.
        field: String(issue.path.at(-1) ?? 'row'),
        message: issue.message,
      }))
      return { line: row.line, ok: false, issues: [...issues, ...found] }
    }
    if (resolveType(parsed.data) === 'static') {
      const encoded = encodePayload(parsed.data)
      const fit = encoded.ok
        ? checkCapacity(encoded.payload, parsed.data.style?.errorCorrectionLevel ?? 'M')
        : encoded
      if (!fit.ok) return { line: row.line, ok: false, issues: [{ field: 'content', message: fit.message }] }
    }
    return { line: row.line, ok: true, input: input as CreateQrCodeParams }
  })
}
