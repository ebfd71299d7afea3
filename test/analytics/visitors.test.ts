import { ManualClock } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Api, api, UNLIMITED } from '../api/helpers.js'
import { createDynamic, scanOk } from '../redirects/scan-helpers.js'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { importCsv, scansAt, toCsv } from './import-helpers.js'

const ZONES = ['UTC', 'Asia/Kathmandu', 'America/New_York', 'Pacific/Auckland', 'Australia/Lord_Howe']
const DAY_MS = 86_400_000

/** A fixed pseudo-random sequence, so a failure can be replayed. */
function randomFrom(seed: number) {
  let state = seed
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31
    return state / 2 ** 31
  }
}

const localDates = new Map<string, Intl.DateTimeFormat>()
/** The local date of an instant in a zone, by Intl alone (not the server's zone code). */
function localDate(at: string, zone: string): string {
  let format = localDates.get(zone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    })
    localDates.set(zone, format)
  }
  return format.format(new Date(at))
}

const addDays = (date: string, n: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10)

/**
 * DESIGN §16: unique visitors are exact in every window and zone. Live scans through the
 * redirect's write path and history imported between them (admin import-scans), checked
 * against a count of distinct visitors straight from the scans table.
 */
describe.each(dialects())('unique visitors against the scans themselves on %s', (dialect) => {
  let server: TestServer
  let client: Api
  const clock = new ManualClock(new Date('2026-10-01T00:00:00.000Z'))

  beforeAll(async () => {
    server = await startServer({ dialect, clock, env: UNLIMITED })
    client = api(server, server.apiKey)
  })
  afterAll(() => server.close())

  it('counts live scans and imported history exactly over random windows and zones', async () => {
    const random = randomFrom(dialect === 'sqlite' ? 7 : 11)
    const code = await createDynamic(client)
    const shortCode = code.shortCode as string
    const ips = Array.from({ length: 24 }, (_, i) => `203.0.113.${i + 1}`)
    const live = async (steps: number) => {
      for (let step = 0; step < steps; step++) {
        clock.advance(Math.floor(random() * 40 * 3_600_000) + 60_000)
        const n = 1 + Math.floor(random() * 3)
        for (let i = 0; i < n; i++)
          await scanOk(server, shortCode, { ip: ips[Math.floor(random() * ips.length)] })
        // Some batches hold several days, most one.
        if (random() < 0.6) await server.running.scans.flush()
      }
      await server.running.scans.flush()
    }
    await live(25)

    // History between and before the stored visits, from the same visitors and new ones.
    const stored = await server.ctx.db
      .selectFrom('scans')
      .select('visitor_id')
      .distinct()
      .where('qr_code_id', '=', code.id)
      .execute()
    const known = stored.map((r) => r.visitor_id)
    const start = Date.parse('2026-09-01T00:00:00.000Z')
    for (let round = 0; round < 3; round++) {
      const now = clock.now().getTime()
      const rows = Array.from({ length: 40 }, () => ({
        at: new Date(start + Math.floor(random() * (now - start))).toISOString(),
        visitor:
          random() < 0.7
            ? (known[Math.floor(random() * known.length)] as string)
            : `imported-${Math.floor(random() * 15)}`,
        // Varied values, so the top lists of the windows below have something to rank.
        country: ['DE', 'NP', 'US', 'FR', 'JP'][Math.floor(random() * 5)] as string,
        device: ['mobile', 'desktop', 'tablet'][Math.floor(random() * 3)] as string,
        referrer: ['direct', 'news.example', 'mail.example'][Math.floor(random() * 3)] as string,
      }))
      await scansAt(server, server.accountId, code.id, rows)
      await live(8)
    }

    const scans = await server.ctx.db
      .selectFrom('scans')
      .select(['scanned_at', 'visitor_id', 'country', 'device', 'referrer'])
      .where('qr_code_id', '=', code.id)
      .execute()
    expect(scans.length).toBeGreaterThan(150)
    const distinct = (zone: string, from: string, to: string) => {
      const visitors = new Set<string>()
      for (const s of scans) {
        const date = localDate(s.scanned_at, zone)
        if (date >= from && date <= to) visitors.add(s.visitor_id)
      }
      return visitors.size
    }
    /** A top list straight from the scans: count desc, then name by code point, at most 10. */
    const top = (zone: string, from: string, to: string, column: 'country' | 'device' | 'referrer') => {
      const counts = new Map<string, number>()
      for (const s of scans) {
        const date = localDate(s.scanned_at, zone)
        if (date < from || date > to) continue
        const name = s[column] ?? 'Unknown'
        counts.set(name, (counts.get(name) ?? 0) + 1)
      }
      return [...counts]
        .map(([name, count]) => ({ name, count }))
        .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .slice(0, 10)
    }

    // The write path's visitor-day rows (live batches and imports between them): each one's
    // first and last quarter hour and the visit days before and after it, as the scans say.
    const days = new Map<string, { first: number; last: number }>()
    for (const s of scans) {
      const key = `${s.scanned_at.slice(0, 10)}|${s.visitor_id}`
      const quarter = Math.floor(Date.parse(s.scanned_at) / 900_000)
      const day = days.get(key)
      if (!day) days.set(key, { first: quarter, last: quarter })
      else days.set(key, { first: Math.min(day.first, quarter), last: Math.max(day.last, quarter) })
    }
    const expected = new Map<string, [number, number, string, string]>()
    const keys = [...days.keys()].sort((a, b) => {
      const [da, va] = a.split('|') as [string, string]
      const [db, vb] = b.split('|') as [string, string]
      return va < vb ? -1 : va > vb ? 1 : da < db ? -1 : da > db ? 1 : 0
    })
    keys.forEach((key, i) => {
      const [, visitor] = key.split('|') as [string, string]
      const before = keys[i - 1]
      const after = keys[i + 1]
      const { first, last } = days.get(key) as { first: number; last: number }
      expected.set(key, [
        first,
        last,
        before?.endsWith(`|${visitor}`) ? (before.split('|')[0] as string) : '',
        after?.endsWith(`|${visitor}`) ? (after.split('|')[0] as string) : '',
      ])
    })
    const rows = await server.ctx.db
      .selectFrom('scan_visitor_dates')
      .selectAll()
      .where('qr_code_id', '=', code.id)
      .execute()
    expect(
      new Map(
        rows.map((r) => [
          `${r.day}|${r.visitor_id}`,
          [Number(r.first_quarter), Number(r.last_quarter), r.previous_day, r.next_day],
        ]),
      ),
    ).toEqual(expected)

    // The running totals (live batches and imports before and between them): each value's
    // scans up to and including each quarter hour it has scans in, as the scans say.
    const perQuarter = new Map<string, number>()
    for (const s of scans) {
      const quarter = Math.floor(Date.parse(s.scanned_at) / 900_000)
      for (const [dimension, value] of [
        ['scans', ''],
        ['country', s.country ?? 'Unknown'],
        ['device', s.device],
        ['referrer', s.referrer ?? 'Unknown'],
      ]) {
        const key = `${dimension}|${value}|${String(quarter).padStart(12, '0')}`
        perQuarter.set(key, (perQuarter.get(key) ?? 0) + 1)
      }
    }
    const runningTotals = new Map<string, [number, number]>()
    const sums = new Map<string, number>()
    for (const key of [...perQuarter.keys()].sort()) {
      const [dimension, value, quarter] = key.split('|') as [string, string, string]
      const count = perQuarter.get(key) as number
      const sum = (sums.get(`${dimension}|${value}`) ?? 0) + count
      sums.set(`${dimension}|${value}`, sum)
      runningTotals.set(`${dimension}|${value}|${Number(quarter)}`, [count, sum])
    }
    const running = await server.ctx.db
      .selectFrom('scan_running')
      .selectAll()
      .where('qr_code_id', '=', code.id)
      .where('dimension', 'in', ['scans', 'country', 'device', 'referrer'])
      .execute()
    expect(
      new Map(
        running.map((r) => [
          `${r.dimension}|${r.value}|${Number(r.quarter)}`,
          [Number(r.count), Number(r.running)],
        ]),
      ),
    ).toEqual(runningTotals)
    const perDay = (zone: string, from: string, to: string) => {
      const counts = new Map<string, number>()
      for (let date = from; date <= to; date = addDays(date, 1)) counts.set(date, 0)
      for (const s of scans) {
        const date = localDate(s.scanned_at, zone)
        if (counts.has(date)) counts.set(date, (counts.get(date) as number) + 1)
      }
      return [...counts].map(([date, count]) => ({ date, count }))
    }

    const today = clock.now().toISOString().slice(0, 10)
    for (let i = 0; i < 80; i++) {
      const zone = ZONES[i % ZONES.length] as string
      const length = 1 + Math.floor(random() * (i % 3 === 0 ? 60 : 10))
      const start = addDays('2026-08-25', Math.floor(random() * 80))
      const from = start > today ? today : start
      const to = addDays(from, length - 1) > today ? addDays(today, 1) : addDays(from, length - 1)
      const query = `from=${from}&to=${to}&timezone=${zone}&compare=previous`
      const res = await client.get(`/qr-codes/${code.id}/analytics?${query}`)
      expect(res.status, res.text).toBe(200)
      const { uniqueVisitors, previous } = res.body.data
      expect(uniqueVisitors, query).toBe(distinct(zone, from, to))
      expect(res.body.data.topCountries, `countries ${query}`).toEqual(top(zone, from, to, 'country'))
      expect(res.body.data.topDevices, `devices ${query}`).toEqual(top(zone, from, to, 'device'))
      expect(res.body.data.topReferrers, `referrers ${query}`).toEqual(top(zone, from, to, 'referrer'))
      expect(previous.uniqueVisitors, `previous of ${query}`).toBe(distinct(zone, previous.from, previous.to))
      expect(res.body.data.eventsByDay, `days ${query}`).toEqual(perDay(zone, from, to))
      expect(previous.totalEvents, `previous of ${query}`).toBe(
        perDay(zone, previous.from, previous.to).reduce((sum, d) => sum + d.count, 0),
      )
      const account = await client.get(`/analytics?qrCodeIds=${code.id}&${query}`)
      expect(account.status, account.text).toBe(200)
      expect(account.body.data.uniqueVisitors, `account ${query}`).toBe(uniqueVisitors)
      expect(account.body.data.topCountries, `account ${query}`).toEqual(res.body.data.topCountries)
      const total = scans.filter((s) => {
        const date = localDate(s.scanned_at, zone)
        return date >= from && date <= to
      }).length
      expect(account.body.data.topCodes, `account ${query}`).toEqual(
        total > 0 ? [{ id: code.id, name: code.name, count: total }] : [],
      )
    }
    // Periods ending today, in every zone.
    for (const zone of ZONES)
      for (const period of ['7d', '30d', '90d']) {
        const res = await client.get(`/qr-codes/${code.id}/analytics?period=${period}&timezone=${zone}`)
        expect(res.status, res.text).toBe(200)
        const { from, to, uniqueVisitors } = res.body.data
        expect(uniqueVisitors, `${period} ${zone}`).toBe(distinct(zone, from, to))
      }
  })

  it("counts visitors exactly at a zone window's partial UTC days, at the zones' midnights", async () => {
    // A window in a zone starts and ends inside UTC days: Kathmandu's days start at 18:15 UTC
    // (its first partial day is a quarter of a UTC day, its last three quarters), New York's at
    // 04:00 or 05:00 (the other way round), Lord Howe's near 13:00. Visitors at every part of
    // twenty days, most several times, checked against the scans per code and through
    // GET /analytics, for windows ending now and earlier ones.
    const code = await createDynamic(client)
    const random = randomFrom(dialect === 'sqlite' ? 5 : 13)
    const now = clock.now().getTime()
    const today = new Date(now).toISOString().slice(0, 10)
    const visitor = () => `edge-${Math.floor(random() ** 2 * 80)}`
    const rows = Array.from({ length: 400 }, () => ({
      at: new Date(now - 60_000 - Math.floor(random() * 20 * DAY_MS)).toISOString(),
      visitor: visitor(),
    }))
    // And in the first and the last minute of the zones' local days (their midnights in UTC,
    // either side of DST), where a quarter hour's place decides which window a scan is in.
    const midnight = Date.parse(`${today}T00:00:00.000Z`)
    for (let day = 1; day <= 20; day++)
      for (const hours of [18.25, 4, 5, 13, 13.5])
        for (const minute of [-1, 0]) {
          const at = midnight - day * DAY_MS + hours * 3_600_000 + minute * 60_000
          if (random() < 0.6) rows.push({ at: new Date(at).toISOString(), visitor: visitor() })
        }
    await scansAt(server, server.accountId, code.id, rows)
    const distinct = (zone: string, from: string, to: string) =>
      new Set(
        rows
          .filter((r) => {
            const date = localDate(r.at, zone)
            return date >= from && date <= to
          })
          .map((r) => r.visitor),
      ).size
    const check = async (query: string) => {
      const res = await client.get(`/qr-codes/${code.id}/analytics?${query}&compare=previous`)
      expect(res.status, res.text).toBe(200)
      const { from, to, uniqueVisitors, previous, timezone } = res.body.data
      expect(uniqueVisitors, query).toBe(distinct(timezone, from, to))
      expect(previous.uniqueVisitors, `previous of ${query}`).toBe(
        distinct(timezone, previous.from, previous.to),
      )
      const account = await client.get(`/analytics?qrCodeIds=${code.id}&${query}&compare=previous`)
      expect(account.status, account.text).toBe(200)
      expect(account.body.data.uniqueVisitors, `account ${query}`).toBe(uniqueVisitors)
      expect(account.body.data.previous.uniqueVisitors, `account ${query}`).toBe(previous.uniqueVisitors)
      return uniqueVisitors as number
    }
    let counted = 0
    for (const zone of ['Asia/Kathmandu', 'America/New_York', 'Australia/Lord_Howe']) {
      counted += await check(`period=7d&timezone=${zone}`)
      for (let i = 0; i < 10; i++) {
        const from = addDays(today, -Math.floor(random() * 12))
        const to = addDays(from, Math.floor(random() * 5))
        counted += await check(`from=${from}&to=${to > today ? today : to}&timezone=${zone}`)
      }
    }
    // Not a test of empty windows: most of them have visitors.
    expect(counted).toBeGreaterThan(33 * 15)
  })

  it('keeps a window exact when a visit is imported between two stored ones', async () => {
    const code = await createDynamic(client)
    const id = code.id
    // One visitor on the 5th and the 20th; a window of the 10th–25th counts them on the 20th.
    await scansAt(server, server.accountId, id, [
      { at: '2026-06-05T10:00:00.000Z', visitor: 'v' },
      { at: '2026-06-20T10:00:00.000Z', visitor: 'v' },
      { at: '2026-06-20T11:00:00.000Z', visitor: 'w' },
    ])
    const window = async (from: string, to: string) => {
      const res = await client.get(`/qr-codes/${id}/analytics?from=${from}&to=${to}`)
      expect(res.status, res.text).toBe(200)
      return res.body.data.uniqueVisitors
    }
    expect(await window('2026-06-10', '2026-06-25')).toBe(2)
    expect(await window('2026-06-06', '2026-06-19')).toBe(0)
    // Imported: a visit on the 12th, between the two. The 20th now follows the 12th.
    const report = await importCsv(
      server,
      server.accountId,
      toCsv([{ qrCodeId: id, scannedAt: '2026-06-12T09:00:00.000Z', device: 'mobile', visitorId: 'v' }]),
    )
    expect(report.imported).toBe(1)
    expect(await window('2026-06-10', '2026-06-25')).toBe(2)
    expect(await window('2026-06-06', '2026-06-19')).toBe(1)
    expect(await window('2026-06-13', '2026-06-25')).toBe(2)
    expect(await window('2026-06-13', '2026-06-19')).toBe(0)
    expect(await window('2026-06-01', '2026-06-30')).toBe(2)
    // And one before the first: the 5th is no longer a first visit.
    await scansAt(server, server.accountId, id, [{ at: '2026-06-01T09:00:00.000Z', visitor: 'v' }])
    expect(await window('2026-06-02', '2026-06-05')).toBe(1)
    expect(await window('2026-06-01', '2026-06-01')).toBe(1)
    expect(await window('2026-06-01', '2026-06-30')).toBe(2)
  })
})
