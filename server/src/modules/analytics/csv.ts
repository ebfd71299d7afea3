/**
 * CSV cells for spreadsheets (DESIGN §16): a cell a spreadsheet would run as a formula (it
 * starts with =, +, -, @, a tab or a carriage return) gets a leading apostrophe; then RFC 4180
 * quoting: a cell holding a comma, a quote or a line break is quoted, quotes doubled.
 */
const FORMULA_START = /^[=+\-@\t\r]/
const NEEDS_QUOTES = /[",\r\n]/
/** Either of the two above: most cells need neither, and one test finds that out. */
const NEEDS_WORK = /^[=+\-@\t\r]|[",\r\n]/

export function csvCell(value: string): string {
  if (!NEEDS_WORK.test(value)) return value
  const safe = FORMULA_START.test(value) ? `'${value}` : value
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

/** One CSV line with CRLF (a loop, not map/join: the export formats a million of these). */
export function csvLine(cells: string[]): string {
  let line = ''
  for (let i = 0; i < cells.length; i++)
    line += i === 0 ? csvCell(cells[i] as string) : `,${csvCell(cells[i] as string)}`
  return `${line}\r\n`
}

/** The value a cell of `csvCell` stood for (the apostrophe before a formula start removed). */
export function uncell(value: string): string {
  return value.length > 1 && value.startsWith("'") && FORMULA_START.test(value.slice(1))
    ? value.slice(1)
    : value
}
