import { describe, expect, it } from 'vitest'
import type { ScanVisitorDatesTable } from '../../db/schema.js'
import { gapChanges, linkChanges, linkKnownVisits } from './visitor-gaps.js'

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

const links = (changes: ReturnType<typeof linkChanges>) =>
  changes.map((c) => `${c.previousDay ?? '·'}<${c.day}>${c.nextDay ?? '·'}`).sort()

describe('the previous and next visit days of new visit days', () => {
  it('links new days among the stored ones and changes only their neighbours', () => {
    expect(links(linkChanges([], ['2026-01-01', '2026-01-03']))).toEqual([
      '2026-01-01<2026-01-03>',
      '<2026-01-01>2026-01-03',
    ])
    expect(
      links(
        linkChanges(['2026-01-01', '2026-01-05', '2026-01-09'], ['2026-01-03', '2026-01-07', '2026-01-10']),
      ),
    ).toEqual([
      '2026-01-01<2026-01-03>2026-01-05',
      '2026-01-03<2026-01-05>2026-01-07',
      '2026-01-05<2026-01-07>2026-01-09',
      '2026-01-07<2026-01-09>2026-01-10',
      '2026-01-09<2026-01-10>',
      '·<2026-01-01>2026-01-03',
    ])
  })

  it("chains a known visitor's later days from their last stored day as they are inserted", () => {
    const row = (visitor_id: string, day: string): ScanVisitorDatesTable => ({
      qr_code_id: 'c',
      day,
      visitor_id,
      first_quarter: 0,
      last_quarter: 0,
      previous_day: '',
      next_day: '',
    })
    const rows = [
      row('a', '2026-01-05'),
      row('a', '2026-01-04'),
      row('b', '2026-01-02'),
      row('c', '2026-01-01'),
    ]
    linkKnownVisits(
      rows,
      new Map([
        ['c\0a', '2026-01-03'],
        ['c\0b', '2026-01-02'],
      ]),
    )
    expect(rows.map((r) => `${r.visitor_id} ${r.previous_day}<${r.day}>${r.next_day}`)).toEqual([
      'a 2026-01-04<2026-01-05>',
      'a 2026-01-03<2026-01-04>2026-01-05',
      // Not after the last stored day (already stored), or not known: left to the gaps' lookup.
      'b <2026-01-02>',
      'c <2026-01-01>',
    ])
  })
})
