/**
 * Local days of an IANA time zone, through the platform's `Intl` (DESIGN §16). A day starts at
 * the first instant whose local date is that day: usually local midnight; where a DST change
 * skips midnight (America/Santiago, Asia/Beirut …), the first instant after the gap. So days
 * are 23, 24 or 25 hours long, and a zone's day may start on any quarter hour of UTC.
 */
const DAY_MS = 86_400_000

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    })
    if (formatters.size > 1000) formatters.clear()
    formatters.set(timeZone, f)
  }
  return f
}

interface LocalTime {
  date: string
  /** Local wall-clock time as if it were UTC, in ms (minutes resolution). */
  wall: number
}

function localTime(ms: number, timeZone: string): LocalTime {
  const parts: Record<string, string> = {}
  for (const part of formatter(timeZone).formatToParts(new Date(ms))) parts[part.type] = part.value
  const year = Number(parts.year)
  const month = Number(parts.month)
  const day = Number(parts.day)
  const wall = Date.UTC(year, month - 1, day, Number(parts.hour), Number(parts.minute))
  return { date: new Date(Date.UTC(year, month - 1, day)).toISOString().slice(0, 10), wall }
}

/** The zone's offset from UTC at this instant, in minutes (e.g. 345 for Asia/Kathmandu). */
export function offsetMinutes(ms: number, timeZone: string): number {
  const minute = Math.floor(ms / 60_000) * 60_000
  return Math.round((localTime(minute, timeZone).wall - minute) / 60_000)
}

/** The local date (`YYYY-MM-DD`) of an instant. */
export const localDate = (ms: number, timeZone: string) => localTime(ms, timeZone).date

/** `YYYY-MM-DD` plus n days (calendar arithmetic, no zone). */
export function addDays(date: string, n: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10)
}

/** Days from `from` to `to`, both included. */
export const dayCount = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1

/** The first instant (ms) of a local date. */
export function dayStart(date: string, timeZone: string): number {
  const guess = Date.parse(`${date}T00:00:00Z`)
  let t = guess - offsetMinutes(guess, timeZone) * 60_000
  const second = guess - offsetMinutes(t, timeZone) * 60_000
  if (second !== t) t = second
  if (isFirstInstant(t, date, timeZone)) return t
  // Midnight does not exist on this day (or the offsets disagree): search, minute by minute.
  let low = guess - 26 * 3_600_000
  let high = guess + 26 * 3_600_000
  while (high - low > 60_000) {
    const mid = low + Math.floor((high - low) / 120_000) * 60_000
    if (localDate(mid, timeZone) >= date) high = mid
    else low = mid
  }
  return high
}

function isFirstInstant(t: number, date: string, timeZone: string): boolean {
  return localDate(t, timeZone) === date && localDate(t - 60_000, timeZone) < date
}

/**
 * The start instant of each day from `from` to `to`, and of the day after `to` (so day i is
 * [starts[i], starts[i+1])). One `Intl` call per day when the offset does not change.
 */
export function dayStarts(from: string, to: string, timeZone: string): number[] {
  const n = dayCount(from, to)
  const starts = [dayStart(from, timeZone)]
  let offset = offsetMinutes(starts[0] as number, timeZone)
  for (let i = 1; i <= n; i++) {
    const previous = starts[i - 1] as number
    const atMidnight = (previous + offset * 60_000) % DAY_MS === 0
    const candidate = previous + DAY_MS
    const next = offsetMinutes(candidate, timeZone)
    // A day that started at midnight, and the same offset a day later: no change in between
    // (zones change at most once a day), so the next midnight is exactly 24 hours on.
    const start = atMidnight && next === offset ? candidate : dayStart(addDays(from, i), timeZone)
    starts.push(start)
    offset = start === candidate ? next : offsetMinutes(start, timeZone)
  }
  return starts
}
