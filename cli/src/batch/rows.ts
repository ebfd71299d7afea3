import { createHash } from 'node:crypto'
import { basename } from 'node:path'
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

/**
 * Maps header cells to contract field names; unknown, duplicate or missing columns stop the run.
 * `spelling` learns how the header wrote each column (`target_url`), to name it in messages.
 */
export function headerMapper(
  known: readonly string[],
  required: readonly string[],
  spelling = new Map<string, string>(),
) {
  const bySquashed = new Map(known.map((name) => [squash(name), name]))
  return (header: string[]): string[] => {
    const columns = header.map((cell) => {
      const name = bySquashed.get(squash(cell))
      if (name) spelling.set(name, cell.trim())
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
          hint: 'Required: name, contentType, content. Optional: type, targetUrl, externalId, tags (;-separated) and the style columns.',
        },
      )
    return columns
  }
}

/** A row as the API body: empty cells are left out, style columns gathered into `style`. */
function toInput(
  cells: Record<string, string>,
  columns: { top: readonly string[]; style: readonly string[] },
  splitTagCell: (cell: string) => string[],
  baseStyle: Record<string, unknown> = {},
): { input: Record<string, unknown>; issues: RowIssue[] } {
  const input: Record<string, unknown> = {}
  const style: Record<string, unknown> = { ...baseStyle }
  const issues: RowIssue[] = []
  const cell = (name: string) => {
    const raw = cells[name] ?? ''
    return TRIMMED.has(name) ? raw.trim() : raw
  }
  for (const name of columns.top) if (cell(name) !== '') input[name] = cell(name)
  // DESIGN §17: the `tags` cell is `;`-separated (`spring; menu`).
  if (typeof input.tags === 'string') input.tags = splitTagCell(input.tags)
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
 * Checks every row as the server will, with the same `checkCreatable` (the contract's schema,
 * then the symbol's capacity). Problems name the CSV column as the header spells it.
 */
export async function checkRows(
  rows: readonly CsvRow[],
  columns: { top: readonly string[]; style: readonly string[] },
  spelling: ReadonlyMap<string, string> = new Map(),
  style: Record<string, unknown> = {},
): Promise<CheckedRow[]> {
  const { checkCreatable } = await loadRender()
  const { splitTagCell } = await loadContract()
  // `style.margin` is the CSV's margin column, `tags.2` its tags column.
  const column = (path: string) => {
    const name =
      path
        .split('.')
        .filter((part) => !/^\d+$/.test(part))
        .at(-1) || 'row'
    return spelling.get(name) ?? name
  }
  return rows.map((row): CheckedRow => {
    if (row.error) return { line: row.line, ok: false, issues: [{ field: 'row', message: row.error }] }
    const { input, issues } = toInput(row.cells, columns, splitTagCell, style)
    const checked = checkCreatable(input)
    if (!checked.ok || issues.length > 0) {
      const found = checked.ok
        ? []
        : checked.issues.map((i) => ({ field: column(i.path), message: i.message }))
      return {
        line: row.line,
        ok: false,
        issues: [...issues.map((i) => ({ ...i, field: column(i.field) })), ...found],
      }
    }
    return { line: row.line, ok: true, input: input as CreateQrCodeParams }
  })
}

/** JSON with keys sorted, so equal rows give equal text whatever the column order. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
}

/**
 * Gives every row without an `externalId` column value one derived from the file's name and
 * the row's content: `codes.csv:3fa1…` (the nth identical row gets `:n`). Unchanged rows keep
 * their id from run to run, so after fixing rows in place a re-run creates only the fixed
 * ones; the server refuses the others as already uploaded. A row moved to another file name
 * is a new row.
 */
export function deriveExternalIds(file: string, rows: { input: CreateQrCodeParams }[]): void {
  const name = (file === '-' ? 'stdin' : basename(file)).slice(0, 200)
  const seen = new Map<string, number>()
  for (const row of rows) {
    if (row.input.externalId !== undefined) continue
    const hash = createHash('sha256').update(canonical(row.input)).digest('hex').slice(0, 24)
    const n = (seen.get(hash) ?? 0) + 1
    seen.set(hash, n)
    row.input.externalId = n === 1 ? `${name}:${hash}` : `${name}:${hash}:${n}`
  }
}
