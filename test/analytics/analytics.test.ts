import { ManualClock, runHousekeeping } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Api, api, expectError, MISSING_ID, textCode, UNLIMITED } from '../api/helpers.js'
import {
  AGENTS,
  analytics,
  counts,
  createDynamic,
  PLACES,
  scan,
  scanOk,
  totalScans,
} from '../redirects/scan-helpers.js'
import { dialects, startServer, type TestServer } from '../support/server.js'

const DAY_MS = 86_400_000

describe.each(dialects())('GET /qr-codes/{id}/analytics on %s', (dialect) => {
  let server: TestServer
  let client: Api
  const clock = new ManualClock(new Date('2026-03-10T12:00:00.000Z'))

  beforeAll(async () => {
    server = await startServer({ dialect, clock, env: { ...UNLIMITED, TRUST_PROXY: 'on' } })
    client = api(server, server.apiKey)
  })
  afterAll(() => server.close())

  /** A fresh code created at `at`; the clock stays there. */
  async function codeCreatedAt(at: string) {
    clock.set(at)
    const code = await createDynamic(client)
    return { id: code.id, shortCode: code.shortCode as string }
  }

  async function scanAt(at: string, shortCode: string, options: Parameters<typeof scanOk>[2] = {}) {
    clock.set(at)
    await scanOk(server, shortCode, options)
  }

  describe('happy', () => {
    it('lists every UTC day of 7d, ascending and zero-filled, ending today', async () => {
      const code = await codeCreatedAt('2026-03-01T08:00:00.000Z')
      await scanAt('2026-03-04T00:00:00.000Z', code.shortCode)
      await scanAt('2026-03-10T09:30:00.000Z', code.shortCode)
      await scanAt('2026-03-10T23:59:59.999Z', code.shortCode)
      const stats = await analytics(server, client, code.id, '7d')
      expect(stats.eventsByDay).toEqual([
        { date: '2026-03-04', count: 1 },
        { date: '2026-03-05', count: 0 },
        { date: '2026-03-06', count: 0 },
        { date: '2026-03-07', count: 0 },
        { date: '2026-03-08', count: 0 },
        { date: '2026-03-09', count: 0 },
        { date: '2026-03-10', count: 2 },
      ])
      expect(stats.totalEvents).toBe(3)
    })

    it('moves the window at UTC midnight', async () => {
      const code = await codeCreatedAt('2026-03-01T08:00:00.000Z')
      await scanAt('2026-03-03T23:59:59.999Z', code.shortCode)
      await scanAt('2026-03-04T00:00:00.000Z', code.shortCode)
      await scanAt('2026-03-09T23:59:59.999Z', code.shortCode)
      let stats = await analytics(server, client, code.id, '7d')
      expect(stats.eventsByDay[0]).toEqual({ date: '2026-03-03', count: 1 })
      expect(stats.eventsByDay.at(-1)).toEqual({ date: '2026-03-09', count: 1 })
      expect(stats.totalEvents).toBe(3)

      clock.set('2026-03-10T00:00:00.000Z')
      stats = await analytics(server, client, code.id, '7d')
      expect(stats.eventsByDay).toHaveLength(7)
      expect(stats.eventsByDay[0]).toEqual({ date: '2026-03-04', count: 1 })
      expect(stats.eventsByDay.at(-1)).toEqual({ date: '2026-03-10', count: 0 })
      expect(stats).toMatchObject({ totalEvents: 2, uniqueVisitors: 1 })
    })

    it('covers 30 and 90 days, and 30d by default', async () => {
      const code = await codeCreatedAt('2025-11-01T00:00:00.000Z')
      await scanAt('2025-12-11T10:00:00.000Z', code.shortCode) // 89 days before 2026-03-10
      await scanAt('2025-12-10T10:00:00.000Z', code.shortCode) // 90 days before: outside 90d
      await scanAt('2026-02-09T10:00:00.000Z', code.shortCode) // 29 days before
      await scanAt('2026-02-08T10:00:00.000Z', code.shortCode) // 30 days before: outside 30d
      clock.set('2026-03-10T12:00:00.000Z')
      const d30 = await analytics(server, client, code.id, '30d')
      expect(d30.eventsByDay).toHaveLength(30)
      expect(d30.eventsByDay[0]).toEqual({ date: '2026-02-09', count: 1 })
      expect(d30.totalEvents).toBe(1)
      const d90 = await analytics(server, client, code.id, '90d')
      expect(d90.eventsByDay).toHaveLength(90)
      expect(d90.eventsByDay[0]).toEqual({ date: '2025-12-11', count: 1 })
      expect(d90.totalEvents).toBe(3)
      const byDefault = await client.get(`/qr-codes/${code.id}/analytics`)
      expect(byDefault.body.data).toEqual(d30)
    })

    it('starts period=all on the creation day, and its total equals totalScans', async () => {
      const code = await codeCreatedAt('2026-01-30T22:00:00.000Z')
      await scanAt('2026-01-30T23:00:00.000Z', code.shortCode)
      await scanAt('2026-02-15T10:00:00.000Z', code.shortCode, { ip: PLACES.gb.ip })
      await scanAt('2026-03-10T10:00:00.000Z', code.shortCode, { ip: PLACES.jp.ip })
      const stats = await analytics(server, client, code.id, 'all')
      expect(stats.eventsByDay).toHaveLength(40)
      expect(stats.eventsByDay[0]).toEqual({ date: '2026-01-30', count: 1 })
      expect(stats.eventsByDay.at(-1)).toEqual({ date: '2026-03-10', count: 1 })
      expect(stats.totalEvents).toBe(3)
      expect(await totalScans(client, code.id)).toBe(stats.totalEvents)
      expect(stats.eventsByDay.reduce((sum, day) => sum + day.count, 0)).toBe(3)
    })

    it('counts visitors distinct within the window', async () => {
      const code = await codeCreatedAt('2026-02-01T00:00:00.000Z')
      const a = { ip: PLACES.us.ip, ua: AGENTS.iphone.ua }
      const b = { ip: PLACES.fr.ip, ua: AGENTS.android.ua }
      await scanAt('2026-02-20T10:00:00.000Z', code.shortCode, a)
      await scanAt('2026-02-20T11:00:00.000Z', code.shortCode, b)
      await scanAt('2026-03-05T10:00:00.000Z', code.shortCode, a)
      await scanAt('2026-03-05T11:00:00.000Z', code.shortCode, a)
      clock.set('2026-03-10T12:00:00.000Z')
      expect(await analytics(server, client, code.id, '7d')).toMatchObject({
        totalEvents: 2,
        uniqueVisitors: 1,
      })
      expect(await analytics(server, client, code.id, '30d')).toMatchObject({
        totalEvents: 4,
        uniqueVisitors: 2,
      })
      expect(await analytics(server, client, code.id, 'all')).toMatchObject({
        totalEvents: 4,
        uniqueVisitors: 2,
      })
      await scanAt('2026-03-10T13:00:00.000Z', code.shortCode, b)
      expect(await analytics(server, client, code.id, '7d')).toMatchObject({
        totalEvents: 3,
        uniqueVisitors: 2,
      })
    })

    it('keeps at most 10 entries per list, by count desc then name asc, with Unknown for missing values', async () => {
      const code = await codeCreatedAt('2026-03-10T01:00:00.000Z')
      // 12 referrer hosts: r01 ×12 … r12 ×1, and two ties (r11, r12 and "direct" at 1).
      for (let host = 1; host <= 12; host++) {
        for (let n = 0; n < 13 - host; n++) {
          await scanOk(server, code.shortCode, {
            referer: `https://r${String(host).padStart(2, '0')}.example/`,
            ip: PLACES.private.ip,
          })
        }
      }
      await scanOk(server, code.shortCode, { ua: 'Mozilla/5.0 (Linux) Unknown/1.0', ip: PLACES.private.ip })
      const stats = await analytics(server, client, code.id, '7d')
      expect(stats.totalEvents).toBe(79)
      expect(stats.topReferrers).toHaveLength(10)
      expect(stats.topReferrers.map((r) => r.name)).toEqual([
        'r01.example',
        'r02.example',
        'r03.example',
        'r04.example',
        'r05.example',
        'r06.example',
        'r07.example',
        'r08.example',
        'r09.example',
        'r10.example',
      ])
      expect(stats.topReferrers.map((r) => r.count)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3])
      const all = await analytics(server, client, code.id, 'all')
      expect(all.topReferrers).toEqual(stats.topReferrers)
      expect(counts(stats.topCountries)).toEqual({ Unknown: 79 })
      expect(counts(stats.topCities)).toEqual({ Unknown: 79 })
      expect(counts(stats.topBrowsers)).toEqual({ 'Mobile Safari': 78, Unknown: 1 })
      expect(stats.topOs).toEqual([
        { name: 'iOS', count: 78 },
        { name: 'Linux', count: 1 },
      ])
    })

    it('breaks count ties by name', async () => {
      const code = await codeCreatedAt('2026-03-10T02:00:00.000Z')
      for (const place of [PLACES.jp, PLACES.au, PLACES.us, PLACES.gb, PLACES.gb])
        await scanOk(server, code.shortCode, { ip: place.ip, referer: 'https://b.example/' })
      for (const period of ['7d', 'all'] as const) {
        const stats = await analytics(server, client, code.id, period)
        expect(stats.topCountries).toEqual([
          { name: 'GB', count: 2 },
          { name: 'AU', count: 1 },
          { name: 'JP', count: 1 },
          { name: 'US', count: 1 },
        ])
      }
      // By code point on every dialect: upper case before lower case, whatever the locale.
      await scanOk(server, code.shortCode, { referer: 'not a url' })
      await scanOk(server, code.shortCode)
      await scanOk(server, code.shortCode, { referer: 'https://a.example/' })
      for (const period of ['7d', 'all'] as const) {
        const stats = await analytics(server, client, code.id, period)
        expect(stats.topReferrers.map((r) => r.name)).toEqual(['b.example', 'Unknown', 'a.example', 'direct'])
      }
    })

    it('gives a static code zeros, with every day listed', async () => {
      clock.set('2026-03-10T12:00:00.000Z')
      const code = (await client.post('/qr-codes', textCode())).body.data
      const stats = await analytics(server, client, code.id, '7d')
      expect(stats).toEqual({
        totalEvents: 0,
        uniqueVisitors: 0,
        eventsByDay: Array.from({ length: 7 }, (_, i) => ({
          date: new Date(Date.parse('2026-03-04T00:00:00Z') + i * DAY_MS).toISOString().slice(0, 10),
          count: 0,
        })),
        topDevices: [],
        topBrowsers: [],
        topOs: [],
        topCountries: [],
        topCities: [],
        topReferrers: [],
        // DESIGN §16: every answer says which window it applied.
        from: '2026-03-04',
        to: '2026-03-10',
        timezone: 'UTC',
      })
    })

    it('drops scans and rollups with a code the purge removes', async () => {
      const code = await codeCreatedAt('2026-03-10T03:00:00.000Z')
      await scanOk(server, code.shortCode)
      await server.running.scans.flush()
      await client.delete(`/qr-codes/${code.id}`)
      clock.set('2026-04-11T00:00:00.000Z')
      expect((await runHousekeeping(server.ctx)).purgedCodes).toBeGreaterThanOrEqual(1)
      for (const table of [
        'scans',
        'scan_daily',
        'scan_totals',
        'scan_visitor_days',
        'scan_running',
      ] as const) {
        const rows = await server.ctx.db
          .selectFrom(table)
          .select('qr_code_id')
          .where('qr_code_id', '=', code.id)
          .execute()
        expect(rows, table).toEqual([])
      }
      expect((await scan(server, code.shortCode)).status).toBe(404)
      clock.set('2026-03-10T12:00:00.000Z')
    })
  })

  describe('errors', () => {
    it('rejects an unknown period', async () => {
      const code = await createDynamic(client)
      const res = await client.get(`/qr-codes/${code.id}/analytics?period=1y`)
      expectError(res, 400, 'validation_error')
    })

    it('answers 404 for an unknown or deleted code', async () => {
      expectError(await client.get(`/qr-codes/${MISSING_ID}/analytics`), 404, 'not_found')
      const code = await createDynamic(client)
      await client.delete(`/qr-codes/${code.id}`)
      expectError(await client.get(`/qr-codes/${code.id}/analytics`), 404, 'not_found')
    })
  })

  describe('security', () => {
    it("answers 404 for another account's code, and counts nothing for the caller", async () => {
      const other = api(server, (await server.createAccount()).apiKey)
      const code = await createDynamic(client)
      await scanOk(server, code.shortCode as string)
      expectError(await other.get(`/qr-codes/${code.id}/analytics?period=all`), 404, 'not_found')
      expect((await analytics(server, client, code.id, 'all')).totalEvents).toBe(1)
    })

    it('needs a key with read scope', async () => {
      const code = await createDynamic(client)
      const writer = api(server, (await server.createAccount({ scope: 'write' })).apiKey)
      expectError(await writer.get(`/qr-codes/${code.id}/analytics`), 403, 'insufficient_scope')
      expectError(await client.get(`/qr-codes/${code.id}/analytics`, { key: null }), 401, 'unauthorized')
    })
  })
})
