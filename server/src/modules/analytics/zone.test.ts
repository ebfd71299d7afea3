import { describe, expect, it } from 'vitest'
import { splitWindow } from './window.js'
import { dayStarts, localDate, offsetMinutes } from './zone.js'

const hours = (starts: number[]) => starts.slice(1).map((end, i) => (end - (starts[i] as number)) / 3_600_000)
const iso = (ms: number) => new Date(ms).toISOString()

describe('local days of a zone', () => {
  it.each([
    ['America/New_York', '2026-03-07', [24, 23, 24]],
    ['America/New_York', '2026-10-31', [24, 25, 24]],
    ['Pacific/Auckland', '2026-04-04', [24, 25, 24]],
    ['Australia/Lord_Howe', '2026-04-04', [24, 24.5, 24]],
    ['Asia/Kathmandu', '2026-03-07', [24, 24, 24]],
  ] as const)('%s from %s lasts %j hours', (zone, from, expected) => {
    const to = new Date(Date.parse(`${from}T00:00:00Z`) + 2 * 86_400_000).toISOString().slice(0, 10)
    expect(hours(dayStarts(from, to, zone))).toEqual(expected)
  })

  it('starts a day whose midnight a DST change skips at the first instant after the gap', () => {
    // Santiago moves from 24:00 to 01:00 on 2026-09-06; Beirut from 00:00 to 01:00 on 2026-03-29.
    const santiago = dayStarts('2026-09-06', '2026-09-06', 'America/Santiago')
    expect(iso(santiago[0] as number)).toBe('2026-09-06T04:00:00.000Z')
    expect(hours(santiago)).toEqual([23])
    const beirut = dayStarts('2026-03-29', '2026-03-29', 'Asia/Beirut')
    expect(iso(beirut[0] as number)).toBe('2026-03-28T22:00:00.000Z')
    expect(hours(beirut)).toEqual([23])
  })

  it('puts Kathmandu’s midnight on a quarter hour of UTC', () => {
    expect(iso(dayStarts('2026-03-10', '2026-03-10', 'Asia/Kathmandu')[0] as number)).toBe(
      '2026-03-09T18:15:00.000Z',
    )
    expect(offsetMinutes(Date.parse('2026-03-10T00:00:00Z'), 'Asia/Kathmandu')).toBe(345)
    expect(localDate(Date.parse('2026-03-09T18:14:59Z'), 'Asia/Kathmandu')).toBe('2026-03-09')
    expect(localDate(Date.parse('2026-03-09T18:15:00Z'), 'Asia/Kathmandu')).toBe('2026-03-10')
  })
})

describe('splitWindow', () => {
  const at = (s: string) => Date.parse(s)
  it('splits a zone window into whole UTC days and its two partial ends', () => {
    expect(splitWindow(at('2026-03-09T18:15:00Z'), at('2026-03-12T18:15:00Z'))).toEqual({
      days: { first: '2026-03-10', last: '2026-03-11' },
      edges: [
        [at('2026-03-09T18:15:00Z'), at('2026-03-10T00:00:00Z')],
        [at('2026-03-12T00:00:00Z'), at('2026-03-12T18:15:00Z')],
      ],
    })
  })
  it('needs no edges for UTC days, and no days for a window within one day', () => {
    expect(splitWindow(at('2026-03-10T00:00:00Z'), at('2026-03-12T00:00:00Z'))).toEqual({
      days: { first: '2026-03-10', last: '2026-03-11' },
      edges: [],
    })
    expect(splitWindow(at('2026-03-09T18:15:00Z'), at('2026-03-10T18:15:00Z'))).toEqual({
      days: null,
      edges: [[at('2026-03-09T18:15:00Z'), at('2026-03-10T18:15:00Z')]],
    })
    expect(splitWindow(10, 10)).toEqual({ days: null, edges: [] })
  })
})
