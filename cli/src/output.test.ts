import { describe, expect, it } from 'vitest'
import { type Column, formatTable, tsvLine } from './output.js'
import { Ui } from './ui.js'

function ui(columns: number): Ui {
  const tty = { isTTY: true, columns } as NodeJS.WriteStream
  return new Ui({ color: false, env: {}, stdout: tty, stderr: tty })
}

interface Row {
  id: string
  name: string
  kind: string
  note: string
}

const COLUMNS: Column<Row>[] = [
  { header: 'ID', value: (r) => r.id },
  { header: 'NAME', value: (r) => r.name, shrink: true },
  { header: 'KIND', value: (r) => r.kind, dropOrder: 1 },
  { header: 'NOTE', value: (r) => r.note, dropOrder: 2 },
]
const ROWS: Row[] = [
  { id: 'a1', name: 'A rather long name for a code', kind: 'dynamic', note: 'x'.repeat(20) },
]

describe('formatTable', () => {
  it('keeps every column when the terminal is wide enough', () => {
    expect(formatTable(ROWS, COLUMNS, ui(120))).toBe(
      `ID  NAME                           KIND     NOTE\na1  A rather long name for a code  dynamic  ${'x'.repeat(20)}\n`,
    )
  })

  it('drops optional columns (highest dropOrder first), then narrows shrinkable ones just enough', () => {
    const name = (width: number) => `${'A rather long name for a code'.slice(0, width - 1)}…`
    expect(formatTable(ROWS, COLUMNS, ui(40))).toBe(
      `ID  ${'NAME'.padEnd(27)}  KIND\na1  ${name(27)}  dynamic\n`,
    )
    expect(formatTable(ROWS, COLUMNS, ui(30))).toBe(
      `ID  ${'NAME'.padEnd(17)}  KIND\na1  ${name(17)}  dynamic\n`,
    )
  })
})

it('cuts a URL column after its host, keeping the tail, and never below its minimum width', () => {
  const columns: Column<Row>[] = [
    { header: 'ID', value: (r) => r.id },
    { header: 'NAME', value: (r) => r.name, shrink: true },
    { header: 'URL', value: (r) => r.note, shrink: true, minWidth: 20, ellipsis: 'middle' },
  ]
  const rows = [{ id: 'a1', name: 'A rather long name', kind: '', note: 'example.com/a/very/long/path/end' }]
  const [, line] = formatTable(rows, columns, ui(40)).split('\n')
  expect(line).toBe('a1  A rather long…  example.com/…ath/end')
  const [, narrow] = formatTable(rows, columns, ui(34)).split('\n')
  expect(narrow).toBe('a1  A rathe…  example.com/…ath/end')
})

it('keeps a record on one tab-separated line', () => {
  expect(tsvLine(['a\tb', 'c\r\nd', 'e'])).toBe('a b\tc d\te')
})
