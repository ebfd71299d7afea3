import { describe, expect, it } from 'vitest'
import { csvCell, csvLine, uncell } from './csv.js'

describe('CSV cells', () => {
  it.each([
    ['plain', 'plain'],
    ['=1+1', "'=1+1"],
    ['+49 30', "'+49 30"],
    ['-5', "'-5"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', `"'\rx"`],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['=HYPERLINK("x")', `"'=HYPERLINK(""x"")"`],
    ['', ''],
  ])('%j becomes %j', (value, cell) => {
    expect(csvCell(value)).toBe(cell)
  })

  it('ends lines with CRLF', () => {
    expect(csvLine(['a', 'b,c', '=d'])).toBe('a,"b,c",\'=d\r\n')
  })

  it('takes the apostrophe off a defused formula, and only that', () => {
    expect(uncell("'=1+1")).toBe('=1+1')
    expect(uncell("'-5")).toBe('-5')
    expect(uncell("it's")).toBe("it's")
    expect(uncell("'")).toBe("'")
  })
})
