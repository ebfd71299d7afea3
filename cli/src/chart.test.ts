import { describe, expect, it } from 'vitest'
import { dayChart, hbar } from './chart.js'

const days = (counts: number[]) =>
  counts.map((count, i) => ({ date: `2026-05-${String(i + 1).padStart(2, '0')}`, count }))

describe('dayChart', () => {
  it('draws one column per day, scaled to the busiest day, in eighth blocks', () => {
    const lines = dayChart(days([0, 8, 16, 1]), 80, 2)
    // 8 of 16 fills the lower of 2 rows; 1 of 16 is one eighth of a row.
    expect(lines).toEqual([
      '16 │      ██',
      ' 0 │   ██ ██ ▁▁',
      '   └────────────',
      '    2026-05-01 2026-05-04',
    ])
  })

  it('sums days into wider columns when they do not fit', () => {
    const lines = dayChart(days(Array.from({ length: 30 }, () => 1)), 20, 1)
    expect(lines.at(-1)).toContain('(each column: 2 days)')
    expect(lines[0]).toBe('2 │███████████████')
  })

  it('draws nothing for no days', () => {
    expect(dayChart([], 80)).toEqual([])
  })
})

describe('hbar', () => {
  it('is `width` characters at the maximum and at least an eighth for any count', () => {
    expect(hbar(10, 10, 5)).toBe('█████')
    expect(hbar(1, 1000, 5)).toBe('▏')
    expect(hbar(5, 10, 5)).toBe('██▌')
    expect(hbar(0, 10, 5)).toBe('')
  })
})
