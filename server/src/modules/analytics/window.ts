import type { Period } from '@qrctl/contract'
import { invalidField } from '../../errors.js'
import { QUARTER_MS } from '../scans/scan-windows.js'
import { addDays, dayCount, dayStarts, localDate } from './zone.js'

/** At most this many days in one window (DESIGN §16). */
export const MAX_DAYS = 366
const PERIOD_DAYS: Record<Exclude<Period, 'all'>, number> = { '7d': 7, '30d': 30, '90d': 90 }
const DAY_MS = 86_400_000

/**
 * A window of local days in one zone, computed once; every query takes it (STYLE: "windows
 * and zones are computed once"). Instants are ms; day i is [starts[i], starts[i + 1]).
 */
export interface Window {
  from: string
  to: string
  timezone: string
  dates: string[]
  starts: number[]
  /** The part of the window that is counted: up to the current quarter hour. */
  countFrom: number
  countTo: number
}

export interface WindowQuery {
  period?: Period
  from?: string
  to?: string
  timezone?: string
  compare?: 'previous'
}

export function makeWindow(from: string, to: string, timezone: string, bounds: { now: number }): Window {
  const starts = dayStarts(from, to, timezone)
  const dates = Array.from({ length: starts.length - 1 }, (_, i) => addDays(from, i))
  const first = starts[0] as number
  const end = starts[starts.length - 1] as number
  // Days after today count zero. Days before a code's creation hold only scans imported from
  // its history (admin import-scans), and those are counted: that is why they were imported.
  const countTo = Math.min(end, Math.floor(bounds.now / QUARTER_MS + 1) * QUARTER_MS)
  return { from, to, timezone, dates, starts, countFrom: first, countTo: Math.max(first, countTo) }
}

/** The window of as many local days just before. */
export function previousWindow(window: Window, bounds: { now: number }): Window {
  const n = window.dates.length
  return makeWindow(addDays(window.from, -n), addDays(window.from, -1), window.timezone, bounds)
}

/**
 * The window a request asks for (DESIGN §16): `from`/`to` (both or neither, never with
 * `period`, `from` ≤ `to`, at most 366 days) or a period ending today in the zone; `all`
 * starts on `firstDay` (the creation day). Every bad combination is a 400 naming the parameter.
 */
export function resolveWindow(
  query: WindowQuery,
  options: { now: number; firstInstant: number; defaultPeriod: Exclude<Period, 'all'> },
): { window: Window; previous?: Window } {
  const timezone = query.timezone ?? 'UTC'
  if (query.from !== undefined && query.to === undefined)
    throw invalidField('to', 'Give to together with from')
  if (query.to !== undefined && query.from === undefined)
    throw invalidField('from', 'Give from together with to')
  if (query.period !== undefined && query.from !== undefined)
    throw invalidField('period', 'Give either period or from and to, not both')
  if (query.compare !== undefined && query.period === 'all')
    throw invalidField(
      'compare',
      'compare=previous needs a window with a length; period=all has none before it',
    )
  const today = localDate(options.now, timezone)
  let from: string
  let to: string
  if (query.from !== undefined && query.to !== undefined) {
    ;({ from, to } = query)
    if (from > to) throw invalidField('to', 'Must be on or after from')
    if (dayCount(from, to) > MAX_DAYS) throw invalidField('to', `At most ${MAX_DAYS} days from from`)
  } else {
    const period = query.period ?? options.defaultPeriod
    to = today
    if (period === 'all') {
      const created = localDate(options.firstInstant, timezone)
      from = created < today ? created : today
    } else from = addDays(today, 1 - PERIOD_DAYS[period])
  }
  const bounds = { now: options.now }
  const window = makeWindow(from, to, timezone, bounds)
  return query.compare ? { window, previous: previousWindow(window, bounds) } : { window }
}

/**
 * The counted part of a window split for the rollups: whole UTC days (read from the daily
 * rollups) and up to two partial days at its ends (read per quarter hour, or per scan).
 */
export interface Split {
  /** Whole UTC days, inclusive, or null when there are none. */
  days: { first: string; last: string } | null
  /** [from, to) instants in ms, each on a quarter hour, less than a UTC day long. */
  edges: [number, number][]
}

export function splitWindow(from: number, to: number): Split {
  if (to <= from) return { days: null, edges: [] }
  const firstWhole = Math.ceil(from / DAY_MS) * DAY_MS
  const lastWhole = Math.floor(to / DAY_MS) * DAY_MS
  if (firstWhole >= lastWhole) return { days: null, edges: [[from, to]] }
  const edges: [number, number][] = []
  if (from < firstWhole) edges.push([from, firstWhole])
  if (lastWhole < to) edges.push([lastWhole, to])
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10)
  return { days: { first: iso(firstWhole), last: iso(lastWhole - DAY_MS) }, edges }
}
