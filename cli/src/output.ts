import type { ChalkInstance } from 'chalk'
import type { Ui } from './ui.js'

/** One column of a listing: its header, its cell, and whether it may shrink to fit the terminal. */
export interface Column<T> {
  header: string
  /** The cell as machines get it (tab-separated output). */
  value: (row: T) => string
  /** The cell as people see it on a terminal, when it differs (a short date). */
  display?: (row: T) => string
  /** Shrinks (with …) when the table is wider than the terminal. */
  shrink?: boolean
  /** A shrinking column never gets narrower than this (a URL stays readable). */
  minWidth?: number
  /** Where a shrunk cell is cut: at the end (default), or in the middle (URLs keep host and tail). */
  ellipsis?: 'end' | 'middle'
  /** Left out of a table too wide for the terminal; the highest number goes first. */
  dropOrder?: number
  style?: (text: string, color: ChalkInstance, row: T) => string
}

/** Tabs and line breaks would split a record in tab-separated output; they become spaces. */
export function tsvCell(value: string): string {
  return value.replace(/[\t\r\n]+/g, ' ')
}

export function tsvLine(cells: readonly string[]): string {
  return cells.map(tsvCell).join('\t')
}

function shown<T>(column: Column<T>, row: T): string {
  return column.display ? column.display(row) : column.value(row)
}

function truncate(text: string, width: number, at: 'end' | 'middle' = 'end'): string {
  if (text.length <= width) return text
  if (width <= 1) return text.slice(0, width)
  if (at === 'end') return `${text.slice(0, width - 1)}…`
  // A URL keeps its host whole when there is room for it and a little of its tail.
  const slash = text.indexOf('/')
  const head = slash > 0 && slash + 4 < width ? slash + 1 : Math.ceil((width - 1) / 2)
  return `${text.slice(0, head)}…${text.slice(text.length - (width - 1 - head))}`
}

/** Narrows shrinkable columns, widest first, down to `floor` characters, while the table is too wide. */
function shrinkTo(
  widths: number[],
  columns: readonly Pick<Column<never>, 'header' | 'shrink' | 'minWidth'>[],
  over: number,
  floor: number,
): void {
  let left = over
  while (left > 0) {
    let widest = -1
    for (const [i, column] of columns.entries()) {
      const min = Math.max(floor, column.header.length, column.minWidth ?? 0)
      if (!column.shrink || (widths[i] ?? 0) <= min) continue
      if (widest === -1 || (widths[i] ?? 0) > (widths[widest] ?? 0)) widest = i
    }
    if (widest === -1) break
    widths[widest] = (widths[widest] ?? 0) - 1
    left--
  }
}

/**
 * Fits a table to the terminal: columns sized to their content. When that is too wide,
 * optional columns go (highest `dropOrder` first) until the table would fit with its
 * shrinkable columns cut to 16 characters; then those shrink, widest first, only as far as
 * needed (never below 8). What still does not fit wraps.
 */
function layout<T>(rows: readonly T[], all: readonly Column<T>[], maxWidth: number) {
  let columns = [...all]
  let widths = columns.map((c) => Math.max(c.header.length, ...rows.map((r) => oneLine(shown(c, r)).length)))
  const total = (ws: readonly number[]) => ws.reduce((a, b) => a + b, 0) + 2 * (ws.length - 1)
  const comfortable = () =>
    total(
      widths.map((w, i) =>
        columns[i]?.shrink
          ? Math.min(w, Math.max(16, columns[i]?.header.length ?? 0, columns[i]?.minWidth ?? 0))
          : w,
      ),
    )
  const droppable = columns
    .filter((c) => c.dropOrder !== undefined)
    .sort((a, b) => (b.dropOrder ?? 0) - (a.dropOrder ?? 0))
  for (const column of droppable) {
    if (comfortable() <= maxWidth) break
    const i = columns.indexOf(column)
    columns = columns.filter((_, j) => j !== i)
    widths = widths.filter((_, j) => j !== i)
  }
  shrinkTo(widths, columns, total(widths) - maxWidth, 8)
  return { columns, widths }
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ')
}

/** An aligned table with a dim header row, fitted to the terminal width. */
export function formatTable<T>(rows: readonly T[], all: readonly Column<T>[], ui: Ui): string {
  const { columns, widths } = layout(rows, all, ui.columns)
  const color = ui.out
  const line = (cells: string[]) => cells.join('  ').trimEnd()
  const header = line(columns.map((c, i) => color.bold(c.header.padEnd(widths[i] ?? 0))))
  const body = rows.map((row) =>
    line(
      columns.map((c, i) => {
        const width = widths[i] ?? 0
        const text = truncate(oneLine(shown(c, row)), width, c.ellipsis)
        const padded = text.padEnd(width)
        return c.style ? c.style(padded, color, row) : padded
      }),
    ),
  )
  return `${[header, ...body].join('\n')}\n`
}

/** Prints a list the way STYLE.md asks: JSON with --json, a table on a terminal, else one tab-separated line per record. */
export function printList<T>(
  ui: Ui,
  options: { json: boolean },
  rows: readonly T[],
  columns: readonly Column<T>[],
  tableColumns: readonly Column<T>[] = columns,
): void {
  if (options.json) {
    ui.print(JSON.stringify(rows, null, 2))
    return
  }
  if (rows.length === 0) return
  if (ui.stdoutIsTty) {
    ui.print(formatTable(rows, tableColumns, ui))
    return
  }
  ui.print(rows.map((row) => tsvLine(columns.map((c) => c.value(row)))).join('\n'))
}

/** One record: JSON with --json, `label  value` lines on a terminal, else one tab-separated line (as in the listing). */
export function printRecord<T>(
  ui: Ui,
  options: { json: boolean },
  record: T,
  fields: readonly Column<T>[],
  listColumns: readonly Column<T>[],
): void {
  if (options.json) {
    ui.print(JSON.stringify(record, null, 2))
    return
  }
  if (!ui.stdoutIsTty) {
    ui.print(tsvLine(listColumns.map((c) => c.value(record))))
    return
  }
  const width = Math.max(...fields.map((f) => f.header.length))
  const lines = fields.map((f) => {
    const value = shown(f, record)
    const text = f.style ? f.style(value, ui.out, record) : value
    const indented = text.replace(/\r?\n/g, `\n${' '.repeat(width + 2)}`)
    return `${ui.out.dim(f.header.padEnd(width))}  ${indented}`
  })
  ui.print(lines.join('\n'))
}

/** A timestamp as people read it on a terminal: `2026-05-01 14:03` (UTC). */
export function shortTime(iso: string | null): string {
  if (!iso) return ''
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`
}
