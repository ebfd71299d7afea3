import { describe, expect, it } from 'vitest'
import { csvLine, readCsv } from './csv.js'

const identity = (header: string[]) => header

describe('readCsv', () => {
  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('numbers each record by the line it starts on (%s line ends)', (_, eol) => {
    const text = ['name,content', 'a,one', '', 'b,"two', 'lines"', 'c,three', ''].join(eol)
    const { rows } = readCsv(Buffer.from(text), identity)
    expect(rows.map((r) => [r.line, r.cells.name])).toEqual([
      [2, 'a'],
      [4, 'b'],
      [6, 'c'],
    ])
    expect(rows[1]?.cells.content).toBe(`two${eol}lines`)
  })

  it('counts lines after a byte-order mark and multi-byte characters correctly', () => {
    const { rows } = readCsv(Buffer.from('\ufeffname,content\r\nÉté,"x\r\ny"\r\nb,z\r\n'), identity)
    expect(rows.map((r) => [r.line, r.cells.name])).toEqual([
      [2, 'Été'],
      [4, 'b'],
    ])
  })

  it('marks rows with the wrong number of fields instead of failing the file', () => {
    const { rows } = readCsv(Buffer.from('a,b,c\n1,2\n1,2,3\n'), identity)
    expect(rows[0]?.error).toBe('has 2 fields; the header has 3')
    expect(rows[1]?.error).toBeUndefined()
  })

  it('maps the header through the given function', () => {
    const { columns, rows } = readCsv(Buffer.from('Name\nx\n'), (h) => h.map((c) => c.toLowerCase()))
    expect(columns).toEqual(['name'])
    expect(rows[0]?.cells).toEqual({ name: 'x' })
  })

  it('rejects an empty file and malformed quoting', () => {
    expect(() => readCsv(Buffer.from(''), identity)).toThrow('The CSV is empty')
    expect(() => readCsv(Buffer.from('a,b\n"x"y,z\n'), identity)).toThrow('Cannot read the CSV')
  })
})

describe('csvLine', () => {
  it('quotes fields holding a comma, a quote or a line break', () => {
    expect(csvLine(['plain', 'a,b', 'say "hi"', 'two\nlines', null, 3])).toBe(
      'plain,"a,b","say ""hi""","two\nlines",,3\n',
    )
  })
})
