import type { RedirectRule, RuleCondition, Weekday } from '@qrctl/contract'
import type { ScanFacts } from './scan-facts.js'

/**
 * DESIGN §14: the first rule whose conditions all hold gives the destination. A pure function
 * of the rules and the scan's facts (Shlink's RedirectRule, conditions as small predicates).
 * @example matchRules([{ targetUrl: 'https://a', conditions: [{ type: 'os', values: ['ios'] }] }], facts)
 */
export function matchRules(rules: readonly RedirectRule[] | null, facts: ScanFacts): string | undefined {
  if (!rules) return undefined
  for (const rule of rules) {
    if (rule.conditions.every((condition) => holds(condition, facts))) return rule.targetUrl
  }
  return undefined
}

function holds(condition: RuleCondition, facts: ScanFacts): boolean {
  switch (condition.type) {
    case 'device':
      return (condition.values as string[]).includes(facts.device())
    case 'os': {
      const os = facts.os()
      return os !== null && condition.values.includes(os)
    }
    case 'country': {
      const country = facts.country()
      return country !== null && condition.values.includes(country)
    }
    case 'language': {
      const language = facts.language()
      return language !== null && condition.values.some((tag) => languageMatches(tag, language))
    }
    case 'schedule':
      return inSchedule(condition, facts.now)
    case 'after':
      return facts.now.getTime() >= Date.parse(condition.value)
    case 'before':
      return facts.now.getTime() < Date.parse(condition.value)
    case 'query': {
      const query = facts.query()
      if (condition.value === undefined) return query.has(condition.key)
      return query.getAll(condition.key).includes(condition.value)
    }
  }
}

/** `de` matches `de` and `de-AT`; `pt-BR` matches `pt-BR` only; case-insensitive. */
export function languageMatches(conditionTag: string, headerTag: string): boolean {
  const want = conditionTag.toLowerCase()
  const have = headerTag.toLowerCase()
  return have === want || have.startsWith(`${want}-`)
}

type Schedule = Extract<RuleCondition, { type: 'schedule' }>

const DAY_INDEX: Record<string, number> = { Mon: 0, Tue: 1, Wed: 2, Thu: 3, Fri: 4, Sat: 5, Sun: 6 }
const WEEKDAY_INDEX: Record<Weekday, number> = { mon: 0, tue: 1, wed: 2, thu: 3, fri: 4, sat: 5, sun: 6 }

const formatters = new Map<string, Intl.DateTimeFormat>()
const localTimes = new Map<string, { minute: number; day: number; minutes: number }>()

/**
 * Weekday (0 = Monday) and minutes since local midnight of `now` in an IANA zone, by the
 * runtime's own tz database (daylight saving included). Kept per zone for the current minute:
 * every zone in use today changes its offset on a whole minute.
 */
export function localTime(timeZone: string, now: Date): { day: number; minutes: number } {
  const minute = Math.floor(now.getTime() / 60_000)
  const kept = localTimes.get(timeZone)
  if (kept?.minute === minute) return kept
  let format = formatters.get(timeZone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
    formatters.set(timeZone, format)
  }
  let day = 0
  let hour = 0
  let min = 0
  for (const part of format.formatToParts(now)) {
    if (part.type === 'weekday') day = DAY_INDEX[part.value] ?? 0
    else if (part.type === 'hour') hour = Number(part.value)
    else if (part.type === 'minute') min = Number(part.value)
  }
  const local = { minute, day, minutes: hour * 60 + min }
  if (localTimes.size > 1_000) localTimes.clear()
  localTimes.set(timeZone, local)
  return local
}

const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5))

/**
 * `from` inclusive, `to` exclusive (00:00 and 24:00 when missing); `to` before `from` spans
 * midnight, and `days` names the weekday on which the window starts, so a Friday 22:00–02:00
 * window also holds early on Saturday. `from` equal to `to` is an empty window.
 */
export function inSchedule(schedule: Schedule, now: Date): boolean {
  const { day, minutes } = localTime(schedule.timezone, now)
  const from = toMinutes(schedule.from ?? '00:00')
  const to = toMinutes(schedule.to ?? '24:00')
  const onDay = (d: number) => !schedule.days || schedule.days.some((name) => WEEKDAY_INDEX[name] === d)
  if (from < to) return minutes >= from && minutes < to && onDay(day)
  if (from > to) return (minutes >= from && onDay(day)) || (minutes < to && onDay((day + 6) % 7))
  return false
}
