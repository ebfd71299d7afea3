import { describe, expect, it } from 'vitest'
import { gapChanges } from './visitor-gaps.js'

const sorted = (changes: ReturnType<typeof gapChanges>) =>
  changes.map((c) => `${c.day}<${c.previousDay || '∅'}:${c.by}`).sort()

describe('the (day, previous visit day) changes of new visit days', () => {
  it('chains days after the stored ones from the last of them', () => {
    expect(sorted(gapChanges([], ['2026-01-01', '2026-01-03']))).toEqual([
      '2026-01-01<∅:1',
      '2026-01-03<2026-01-01:1',
    ])
    expect(sorted(gapChanges(['2026-01-03'], ['2026-01-05']))).toEqual(['2026-01-05<2026-01-03:1'])
  })

  it('moves the later visit onto a day inserted between two stored ones', () => {
    expect(sorted(gapChanges(['2026-01-01', '2026-01-09'], ['2026-01-05']))).toEqual([
      '2026-01-05<2026-01-01:1',
      '2026-01-09<2026-01-01:-1',
      '2026-01-09<2026-01-05:1',
    ])
  })

  it('makes a day before the first the new first visit', () => {
    expect(sorted(gapChanges(['2026-01-05'], ['2026-01-02', '2026-01-03']))).toEqual([
      '2026-01-02<∅:1',
      '2026-01-03<2026-01-02:1',
      '2026-01-05<2026-01-03:1',
      '2026-01-05<∅:-1',
    ])
  })
})
