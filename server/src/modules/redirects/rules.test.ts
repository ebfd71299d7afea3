import type { RedirectRule, RuleCondition } from '@qrctl/contract'
import { describe, expect, it } from 'vitest'
import type { Device } from '../scans/scan-details.js'
import { withParameters } from './destination.js'
import { inSchedule, matchRules } from './rules.js'
import { preferredLanguage, type ScanFacts } from './scan-facts.js'

function facts(
  f: Partial<{
    now: string
    device: Device
    os: string
    country: string
    accept: string
    query: string
  }> = {},
): ScanFacts {
  return {
    now: new Date(f.now ?? '2026-11-24T12:00:00Z'),
    device: () => f.device ?? 'mobile',
    os: () => (f.os ?? null) as ReturnType<ScanFacts['os']>,
    country: () => f.country ?? null,
    language: () => preferredLanguage(f.accept),
    query: () => new URLSearchParams(f.query ?? ''),
  }
}

type Schedule = Extract<RuleCondition, { type: 'schedule' }>

const holds = (condition: RuleCondition, f: Parameters<typeof facts>[0]) =>
  matchRules([{ targetUrl: 'https://hit.example/', conditions: [condition] }], facts(f)) !== undefined

describe('matchRules: one condition of each type', () => {
  it.each<[string, RuleCondition, Parameters<typeof facts>[0], boolean]>([
    ['device matches', { type: 'device', values: ['tablet', 'mobile'] }, { device: 'mobile' }, true],
    [
      'device other never matches',
      { type: 'device', values: ['mobile', 'tablet', 'desktop'] },
      { device: 'other' },
      false,
    ],
    ['os matches', { type: 'os', values: ['ios'] }, { os: 'ios' }, true],
    ['os unknown', { type: 'os', values: ['ios'] }, {}, false],
    ['country matches', { type: 'country', values: ['DE', 'AT'] }, { country: 'AT' }, true],
    ['country unknown', { type: 'country', values: ['DE'] }, {}, false],
    ['language prefix', { type: 'language', values: ['de'] }, { accept: 'de-AT,en;q=0.8' }, true],
    ['language case-insensitive', { type: 'language', values: ['pt-BR'] }, { accept: 'PT-br' }, true],
    ['language region needs the region', { type: 'language', values: ['pt-BR'] }, { accept: 'pt' }, false],
    ['language no false prefix', { type: 'language', values: ['de'] }, { accept: 'dea' }, false],
    [
      'language highest q wins',
      { type: 'language', values: ['de'] },
      { accept: 'en;q=0.5, de;q=0.9, fr;q=0.9' },
      true,
    ],
    [
      'language first on a tie',
      { type: 'language', values: ['fr'] },
      { accept: 'de;q=0.9, fr;q=0.9' },
      false,
    ],
    [
      'language ignores q=0 and *',
      { type: 'language', values: ['en'] },
      { accept: '*, de;q=0, en;q=0.1' },
      true,
    ],
    ['language without header', { type: 'language', values: ['en'] }, {}, false],
    [
      'after: at the instant',
      { type: 'after', value: '2026-11-24T13:00:00+01:00' },
      { now: '2026-11-24T12:00:00Z' },
      true,
    ],
    [
      'after: before it',
      { type: 'after', value: '2026-11-24T12:00:01Z' },
      { now: '2026-11-24T12:00:00Z' },
      false,
    ],
    [
      'before: at the instant',
      { type: 'before', value: '2026-11-24T12:00:00Z' },
      { now: '2026-11-24T12:00:00Z' },
      false,
    ],
    [
      'before: earlier',
      { type: 'before', value: '2026-11-24T12:00:01Z' },
      { now: '2026-11-24T12:00:00Z' },
      true,
    ],
    ['query present', { type: 'query', key: 'table' }, { query: 'table=' }, true],
    ['query present without =', { type: 'query', key: 'vip' }, { query: 'vip' }, true],
    ['query case-sensitive', { type: 'query', key: 'Table' }, { query: 'table=4' }, false],
    ['query value', { type: 'query', key: 'table', value: '4' }, { query: 'table=3&table=4' }, true],
    ['query other value', { type: 'query', key: 'table', value: '4' }, { query: 'table=40' }, false],
  ])('%s', (_name, condition, f, expected) => {
    expect(holds(condition, f)).toBe(expected)
  })

  it('needs every condition of a rule, and takes the first rule that holds', () => {
    const rules: RedirectRule[] = [
      {
        targetUrl: 'https://a.example/',
        conditions: [
          { type: 'os', values: ['ios'] },
          { type: 'country', values: ['DE'] },
        ],
      },
      { targetUrl: 'https://b.example/', conditions: [{ type: 'os', values: ['ios'] }] },
      { targetUrl: 'https://c.example/', conditions: [{ type: 'device', values: ['mobile'] }] },
    ]
    expect(matchRules(rules, facts({ os: 'ios', country: 'DE' }))).toBe('https://a.example/')
    expect(matchRules(rules, facts({ os: 'ios', country: 'FR' }))).toBe('https://b.example/')
    expect(matchRules(rules, facts({ os: 'android' }))).toBe('https://c.example/')
    expect(matchRules(rules, facts({ device: 'desktop' }))).toBeUndefined()
    expect(matchRules(null, facts())).toBeUndefined()
  })
})

describe('inSchedule: local time in the rule’s IANA zone', () => {
  const lunch: Schedule = { type: 'schedule', timezone: 'Europe/Berlin', from: '11:00', to: '15:00' }
  it.each([
    // Saturday 28 March 2026 is still winter time (UTC+1); Sunday 29 March is summer time (UTC+2).
    ['2026-03-28T09:30:00Z', false],
    ['2026-03-28T10:00:00Z', true],
    ['2026-03-29T09:30:00Z', true],
    ['2026-03-29T13:00:00Z', false],
    ['2026-03-29T12:59:00Z', true],
    ['2026-03-28T13:59:00Z', true],
    ['2026-03-28T14:00:00Z', false],
  ])('lunch 11:00–15:00 in Berlin at %s: %s', (now, expected) => {
    expect(inSchedule(lunch, new Date(now))).toBe(expected)
  })

  it('spans midnight when to is before from, on the day the window starts', () => {
    const friday: Schedule = {
      type: 'schedule',
      timezone: 'Europe/Berlin',
      days: ['fri'],
      from: '22:00',
      to: '02:00',
    }
    expect(inSchedule(friday, new Date('2026-11-27T22:00:00Z'))).toBe(true) // Fri 23:00
    expect(inSchedule(friday, new Date('2026-11-28T00:30:00Z'))).toBe(true) // Sat 01:30
    expect(inSchedule(friday, new Date('2026-11-28T01:00:00Z'))).toBe(false) // Sat 02:00
    expect(inSchedule(friday, new Date('2026-11-28T22:00:00Z'))).toBe(false) // Sat 23:00
    expect(inSchedule(friday, new Date('2026-11-27T00:30:00Z'))).toBe(false) // Fri 01:30 (Thursday's window)
  })

  it('defaults to the whole day, honours days, and treats from = to as empty', () => {
    const weekend: Schedule = { type: 'schedule', timezone: 'America/New_York', days: ['sat', 'sun'] }
    expect(inSchedule(weekend, new Date('2026-11-28T04:59:00Z'))).toBe(false) // Fri 23:59 in New York
    expect(inSchedule(weekend, new Date('2026-11-28T05:00:00Z'))).toBe(true) // Sat 00:00
    const empty: Schedule = { type: 'schedule', timezone: 'UTC', from: '10:00', to: '10:00' }
    expect(inSchedule(empty, new Date('2026-11-28T10:00:00Z'))).toBe(false)
    const late: Schedule = { type: 'schedule', timezone: 'Asia/Kolkata', from: '17:30' }
    expect(inSchedule(late, new Date('2026-11-28T12:00:00Z'))).toBe(true) // 17:30 IST
    expect(inSchedule(late, new Date('2026-11-28T11:59:00Z'))).toBe(false)
  })
})

describe('withParameters', () => {
  it('adds utm_* the destination lacks, then the forwarded query, percent-encoded, before the fragment', () => {
    const forwarded = new URLSearchParams('q=a b&x=%26%23&lang=ü&utm_source=visitor&keep=1')
    expect(
      withParameters(
        'https://shop.example/p?keep=own#top',
        { source: 'poster & flyer', campaign: 'x#1' },
        forwarded,
      ),
    ).toBe(
      'https://shop.example/p?keep=own&utm_source=poster%20%26%20flyer&utm_campaign=x%231&q=a%20b&x=%26%23&lang=%C3%BC#top',
    )
  })

  it('keeps a destination that needs nothing added as it is', () => {
    expect(withParameters('https://a.example/x?utm_source=own', { source: 'mine' }, null)).toBe(
      'https://a.example/x?utm_source=own',
    )
  })
})
