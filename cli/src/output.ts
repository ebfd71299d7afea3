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

function truncate(text: string, width: number): string {
  if (text.length <= width) return text
  return width <= 1 ? text.slice(0, width) : `${text.slice(0, width - 1)}…`
}

/** Columns sized to their content; shrinkable ones give way, widest first, until the table fits. */
function columnWidths<T>(rows: readonly T[], columns: readonly Column<T>[], maxWidth: number): number[] {
  const widths = columns.map((c) =>
    Math.max(c.header.length, ...rows.map((r) => oneLine(shown(c, r)).length)),
  )
  const gap = 2 * (columns.length - 1)
  let over = widths.reduce((a, b) => a + b, 0) + gap - maxWidth
  while (over > 0) {
    let widest = -1
    for (const [i, column] of columns.entries()) {
      if (!column.shrink || (widths[i] ?? 0) <= Math.max(8, column.header.length)) continue
      if (widest === -1 || (widths[i] ?? 0) > (widths[widest] ?? 0)) widest = i
    }
    if (widest === -1) break
    widths[widest] = (widths[widest] ?? 0) - 1
    over--
  }
  return widths
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ')
}

/** An aligned table with a dim header row, fitted to the terminal width. */
export function formatTable<T>(rows: readonly T[], columns: readonly Column<T>[], ui: Ui): string {
  const widths = columnWidths(rows, columns, ui.columns)
  const color = ui.out
  const line = (cells: string[]) => cells.join('  ').trimEnd()
  const header = line(columns.map((c, i) => color.bold(c.header.padEnd(widths[i] ?? 0))))
  const body = rows.map((row) =>
    line(
      columns.map((c, i) => {
        const width = widths[i] ?? 0
        const text = truncate(oneLine(shown(c, row)), width)
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
): void {
  if (options.json) {
    ui.print(JSON.stringify(rows, null, 2))
    return
  }
  if (rows.length === 0) return
  if (ui.stdoutIsTty) {
    ui.print(formatTable(rows, columns, ui))
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
