import { describe, expect, it } from 'vitest'
import { zonedIso } from './analytics.export.js'
import { offsetMinutes } from './zone.js'

const QUARTER_MS = 900_000

/** The plain way: the offset at the instant's quarter hour, then a Date for the local time. */
function expected(iso: string, zone: string): string {
  const ms = Date.parse(iso)
  const offset = offsetMinutes(Math.floor(ms / QUARTER_MS) * QUARTER_MS, zone)
  const abs = Math.abs(offset)
  const suffix = `${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
  return `${new Date(ms + offset * 60_000).toISOString().slice(0, 23)}${suffix}`
}

/** Instants every `stepMs` from `from` for `hours` hours, as stored (UTC ISO strings). */
const instants = (from: string, hours: number, stepMs: number) =>
  Array.from({ length: Math.floor((hours * 3_600_000) / stepMs) }, (_, i) =>
    new Date(Date.parse(from) + i * stepMs).toISOString(),
  )

describe('export timestamps in a zone', () => {
  it.each([
    ['2026-11-01T05:30:00.000Z', 'America/New_York', '2026-11-01T01:30:00.000-04:00'],
    ['2026-11-01T06:30:00.000Z', 'America/New_York', '2026-11-01T01:30:00.000-05:00'],
    ['2026-11-01T06:00:59.999Z', 'Asia/Kathmandu', '2026-11-01T11:45:59.999+05:45'],
    ['2026-11-01T06:14:07.123Z', 'Asia/Kathmandu', '2026-11-01T11:59:07.123+05:45'],
    ['2026-11-01T06:15:00.000Z', 'Asia/Kathmandu', '2026-11-01T12:00:00.000+05:45'],
    ['2026-12-31T23:59:59.999Z', 'Pacific/Chatham', '2027-01-01T13:44:59.999+13:45'],
    ['2026-06-30T23:59:00.000Z', 'America/St_Johns', '2026-06-30T21:29:00.000-02:30'],
    ['2026-03-08T12:00:00.000Z', 'UTC', '2026-03-08T12:00:00.000+00:00'],
  ])('%s in %s is %s', (iso, zone, local) => {
    expect(zonedIso(zone)(iso)).toBe(local)
  })

  it.each([
    // DST changes: 01:00–02:00 twice in New York, a half-hour shift on Lord Howe, Chatham's
    // +13:45 → +12:45, Santiago's skipped midnight.
    ['America/New_York', '2026-11-01T04:00:00.000Z'],
    ['America/New_York', '2026-03-08T05:00:00.000Z'],
    ['Australia/Lord_Howe', '2026-04-04T13:00:00.000Z'],
    ['Pacific/Chatham', '2026-04-04T12:00:00.000Z'],
    ['America/Santiago', '2026-09-06T02:00:00.000Z'],
    ['Asia/Kathmandu', '2026-03-07T17:00:00.000Z'],
    // Offsets that are not whole quarter hours: local mean time (+00:17:30, +05:21:10).
    ['Europe/Amsterdam', '1890-01-01T00:00:00.000Z'],
    ['Asia/Kolkata', '1900-01-01T00:00:00.000Z'],
  ])('agrees with a Date per row in %s around %s, minute by minute and second by second', (zone, from) => {
    for (const step of [37_000, 60_000, 1_000]) {
      const times = instants(from, step === 1_000 ? 1 : 6, step)
      const format = zonedIso(zone)
      expect(times.map(format)).toEqual(times.map((t) => expected(t, zone)))
    }
  })

  it('gives the same answers for rows out of time order', () => {
    const times = instants('2026-11-01T04:00:00.000Z', 4, 97_000).reverse()
    const format = zonedIso('America/New_York')
    expect(times.map(format)).toEqual(times.map((t) => expected(t, 'America/New_York')))
  })
})
