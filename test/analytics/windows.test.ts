import { ManualClock } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Api, api, createCode, expectError, MISSING_ID, textCode, UNLIMITED } from '../api/helpers.js'
import { createDynamic } from '../redirects/scan-helpers.js'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { scansAt } from './import-helpers.js'

/** DESIGN §16: windows of local days in any zone, DST and quarter-hour zones included. */
describe.each(dialects())('analytics windows and time zones on %s', (dialect) => {
  let server: TestServer
  let client: Api
  const clock = new ManualClock(new Date('2026-11-20T12:00:00.000Z'))

  beforeAll(async () => {
    server = await startServer({ dialect, clock, env: UNLIMITED })
    client = api(server, server.apiKey)
  })
  afterAll(() => server.close())

  async function code(at: string[] | Parameters<typeof scansAt>[3]) {
    const created = await createDynamic(client)
    await scansAt(server, server.accountId, created.id, at)
    return created.id
  }

  async function window(id: string, query: string) {
    const res = await client.get(`/qr-codes/${id}/analytics?${query}`)
    expect(res.status, res.text).toBe(200)
    return res.body.data
  }

  const days = (data: { eventsByDay: { date: string; count: number }[] }) =>
    Object.fromEntries(data.eventsByDay.map((d) => [d.date, d.count]))

  describe('happy', () => {
    it('splits days at local midnight in a quarter-hour zone (Asia/Kathmandu, UTC+05:45)', async () => {
      const id = await code([
        '2026-03-09T18:14:59.999Z', // 23:59:59.999 on the 9th in Kathmandu
        '2026-03-09T18:15:00.000Z', // 00:00 on the 10th
        '2026-03-10T18:14:00.000Z', // 23:59 on the 10th
      ])
      const local = await window(id, 'from=2026-03-09&to=2026-03-10&timezone=Asia/Kathmandu')
      expect(local).toMatchObject({
        from: '2026-03-09',
        to: '2026-03-10',
        timezone: 'Asia/Kathmandu',
        totalEvents: 3,
      })
      expect(days(local)).toEqual({ '2026-03-09': 1, '2026-03-10': 2 })
      const utc = await window(id, 'from=2026-03-09&to=2026-03-10')
      expect(utc.timezone).toBe('UTC')
      expect(days(utc)).toEqual({ '2026-03-09': 2, '2026-03-10': 1 })
    })

    it('counts the 23-hour day of the spring DST change (America/New_York, 2026-03-08)', async () => {
      const id = await code([
        '2026-03-08T04:59:59.000Z', // 23:59:59 EST on the 7th
        '2026-03-08T05:00:00.000Z', // 00:00 EST on the 8th
        '2026-03-09T03:59:59.000Z', // 23:59:59 EDT on the 8th: 23 hours later
        '2026-03-09T04:00:00.000Z', // 00:00 EDT on the 9th
      ])
      const local = await window(id, 'from=2026-03-07&to=2026-03-09&timezone=America/New_York')
      expect(days(local)).toEqual({ '2026-03-07': 1, '2026-03-08': 2, '2026-03-09': 1 })
    })

    it('counts the 25-hour day of the autumn DST change (America/New_York, 2026-11-01)', async () => {
      const id = await code([
        '2026-11-01T03:59:59.000Z', // 23:59:59 EDT on Oct 31
        '2026-11-01T04:00:00.000Z', // 00:00 EDT on Nov 1
        '2026-11-02T04:59:59.000Z', // 23:59:59 EST on Nov 1: 25 hours later
        '2026-11-02T05:00:00.000Z', // 00:00 EST on Nov 2
      ])
      const local = await window(id, 'from=2026-10-31&to=2026-11-02&timezone=America/New_York')
      expect(days(local)).toEqual({ '2026-10-31': 1, '2026-11-01': 2, '2026-11-02': 1 })
    })

    it('follows a southern-hemisphere change and a zone ahead of UTC (Pacific/Auckland, 2026-04-05)', async () => {
      const id = await code([
        '2026-04-04T10:59:00.000Z', // 23:59 NZDT on the 4th
        '2026-04-04T11:00:00.000Z', // 00:00 NZDT on the 5th
        '2026-04-05T11:59:00.000Z', // 23:59 NZST on the 5th (25-hour day)
        '2026-04-05T12:00:00.000Z', // 00:00 NZST on the 6th
      ])
      const local = await window(id, 'from=2026-04-04&to=2026-04-06&timezone=Pacific/Auckland')
      expect(days(local)).toEqual({ '2026-04-04': 1, '2026-04-05': 2, '2026-04-06': 1 })
      expect(local.totalEvents).toBe(4)
    })

    it('counts unique visitors exactly in a zone window, partial UTC days included', async () => {
      // Kathmandu's 2026-05-10 is 2026-05-09T18:15Z … 2026-05-10T18:15Z.
      const id = await code([
        { at: '2026-05-09T18:14:00.000Z', visitor: 'a' }, // the day before
        { at: '2026-05-09T18:20:00.000Z', visitor: 'b' }, // partial UTC day at the start
        { at: '2026-05-10T06:00:00.000Z', visitor: 'b' },
        { at: '2026-05-10T06:00:00.000Z', visitor: 'c' },
        { at: '2026-05-10T18:14:00.000Z', visitor: 'd' }, // last minute of the local day
        { at: '2026-05-10T18:15:00.000Z', visitor: 'e' }, // the next day
      ])
      const one = await window(id, 'from=2026-05-10&to=2026-05-10&timezone=Asia/Kathmandu')
      expect(one).toMatchObject({ totalEvents: 4, uniqueVisitors: 3 })
      const three = await window(id, 'from=2026-05-09&to=2026-05-11&timezone=Asia/Kathmandu')
      expect(three).toMatchObject({ totalEvents: 6, uniqueVisitors: 5 })
      const utc = await window(id, 'from=2026-05-10&to=2026-05-10')
      expect(utc).toMatchObject({ totalEvents: 4, uniqueVisitors: 4 })
    })

    it('counts the visitors of a zone window ending today exactly, its partial first UTC day included', async () => {
      // Kathmandu's last 7 days at 2026-11-20T12:00Z start at 2026-11-13T18:15Z.
      const id = await code([
        { at: '2026-11-10T10:00:00.000Z', visitor: 'a' },
        { at: '2026-11-13T18:00:00.000Z', visitor: 'a' }, // before the window
        { at: '2026-11-13T18:30:00.000Z', visitor: 'b' }, // only in the partial first UTC day
        { at: '2026-11-13T19:00:00.000Z', visitor: 'c' },
        { at: '2026-11-18T10:00:00.000Z', visitor: 'c' },
        { at: '2026-11-20T11:00:00.000Z', visitor: 'd' },
      ])
      for (const query of ['period=7d', 'from=2026-11-14&to=2026-11-20', 'from=2026-11-14&to=2026-11-25'])
        expect(await window(id, `${query}&timezone=Asia/Kathmandu`), query).toMatchObject({
          totalEvents: 4,
          uniqueVisitors: 3,
        })
      // A window that does not end today is counted from the visitors per UTC day.
      expect(await window(id, 'from=2026-11-13&to=2026-11-19&timezone=Asia/Kathmandu')).toMatchObject({
        totalEvents: 4,
        uniqueVisitors: 3,
      })
      expect(await window(id, 'period=7d')).toMatchObject({ totalEvents: 2, uniqueVisitors: 2 })
    })

    it('ranks countries, devices and referrers within the zone window only', async () => {
      const id = await code([
        { at: '2026-06-01T10:00:00.000Z', country: 'NP', device: 'tablet' },
        { at: '2026-06-01T11:00:00.000Z', country: 'NP' },
        { at: '2026-06-01T12:00:00.000Z', country: 'IN', referrer: 'news.example' },
        { at: '2026-06-01T18:15:00.000Z', country: 'US' }, // next local day in Kathmandu
      ])
      const local = await window(id, 'from=2026-06-01&to=2026-06-01&timezone=Asia/Kathmandu')
      expect(local.topCountries).toEqual([
        { name: 'NP', count: 2 },
        { name: 'IN', count: 1 },
      ])
      expect(local.topDevices).toEqual([
        { name: 'mobile', count: 2 },
        { name: 'tablet', count: 1 },
      ])
      expect(local.topReferrers).toEqual([
        { name: 'direct', count: 2 },
        { name: 'news.example', count: 1 },
      ])
    })

    it('compares with the window of as many local days just before', async () => {
      const id = await code([
        { at: '2026-07-01T12:00:00.000Z', visitor: 'a' },
        { at: '2026-07-05T12:00:00.000Z', visitor: 'a' },
        { at: '2026-07-07T12:00:00.000Z', visitor: 'b' },
        { at: '2026-07-08T12:00:00.000Z', visitor: 'a' },
        { at: '2026-07-10T12:00:00.000Z', visitor: 'c' },
      ])
      const data = await window(id, 'from=2026-07-08&to=2026-07-14&compare=previous&timezone=Europe/Berlin')
      expect(data).toMatchObject({ totalEvents: 2, uniqueVisitors: 2 })
      expect(data.previous).toEqual({
        from: '2026-07-01',
        to: '2026-07-07',
        totalEvents: 3,
        uniqueVisitors: 2,
      })
    })

    it('answers periods in the zone, ending on its today, with from, to and timezone as applied', async () => {
      // 2026-11-20T12:00Z is already the 21st in Auckland (UTC+13).
      const id = await code(['2026-11-20T11:30:00.000Z'])
      const data = await window(id, 'period=7d&timezone=Pacific/Auckland')
      expect(data).toMatchObject({ from: '2026-11-15', to: '2026-11-21', timezone: 'Pacific/Auckland' })
      expect(days(data)['2026-11-21']).toBe(1)
      const byDefault = await window(id, '')
      expect(byDefault).toMatchObject({
        from: '2026-10-22',
        to: '2026-11-20',
        timezone: 'UTC',
        totalEvents: 1,
      })
      expect(byDefault.eventsByDay).toHaveLength(30)
    })

    it('lists days after today with zeros and takes 366 days', async () => {
      const id = await code(['2026-11-20T10:00:00.000Z'])
      const edge = await window(
        id,
        'from=2000-01-01&to=2000-01-02&compare=previous&timezone=Pacific/Kiritimati',
      )
      expect(edge.previous).toEqual({
        from: '1999-12-30',
        to: '1999-12-31',
        totalEvents: 0,
        uniqueVisitors: 0,
      })
      expect((await window(id, 'from=2999-12-31&to=2999-12-31&timezone=Pacific/Pago_Pago')).totalEvents).toBe(
        0,
      )
      const data = await window(id, 'from=2025-11-20&to=2026-11-20')
      expect(data.eventsByDay).toHaveLength(366)
      const future = await window(id, 'from=2026-11-20&to=2026-11-25')
      expect(future.eventsByDay.map((d: { count: number }) => d.count)).toEqual([1, 0, 0, 0, 0, 0])
    })

    it('answers GET /qr-codes/{id}/scans in the specification’s shape', async () => {
      const id = await code([
        { at: '2026-11-19T23:30:00.000Z', country: 'US' },
        { at: '2026-11-20T01:00:00.000Z', country: 'FR', device: 'desktop' },
      ])
      const res = await client.get(`/qr-codes/${id}/scans?timezone=America/New_York`)
      expect(res.status, res.text).toBe(200)
      const data = res.body.data
      expect(data).toMatchObject({
        from: '2026-10-22',
        to: '2026-11-20',
        timezone: 'America/New_York',
        totalEvents: 2,
      })
      expect(data.byDate).toHaveLength(30)
      expect(data.byDate.at(-2)).toEqual({ date: '2026-11-19', count: 2 })
      expect(data.byCountry).toEqual([
        { name: 'FR', count: 1 },
        { name: 'US', count: 1 },
      ])
      expect(data.byDevice).toEqual([
        { name: 'desktop', count: 1 },
        { name: 'mobile', count: 1 },
      ])
      expect(data.byReferrer).toEqual([{ name: 'direct', count: 2 }])
      const window = await client.get(`/qr-codes/${id}/scans?from=2026-11-19&to=2026-11-19`)
      expect(window.body.data).toMatchObject({ totalEvents: 1, byDate: [{ date: '2026-11-19', count: 1 }] })
    })

    it('answers zeros for a static code', async () => {
      const created = await createCode(client, textCode())
      const res = await client.get(`/qr-codes/${created.id}/scans?from=2026-11-01&to=2026-11-02`)
      expect(res.body.data).toMatchObject({
        totalEvents: 0,
        byDate: [{ count: 0 }, { count: 0 }],
        byCountry: [],
      })
      const stats = await window(created.id, 'from=2026-11-01&to=2026-11-02&compare=previous')
      expect(stats.previous).toEqual({
        from: '2026-10-30',
        to: '2026-10-31',
        totalEvents: 0,
        uniqueVisitors: 0,
      })
    })
  })

  describe('errors', () => {
    const cases: [string, string][] = [
      ['from=2026-01-01', 'to'],
      ['to=2026-01-01', 'from'],
      ['period=7d&from=2026-01-01&to=2026-01-02', 'period'],
      ['from=2026-01-02&to=2026-01-01', 'to'],
      ['from=2025-01-01&to=2026-01-02', 'to'],
      ['from=2026-02-30&to=2026-03-01', 'from'],
      ['from=20260101&to=2026-01-02', 'from'],
      ['from=1999-12-31&to=2000-01-02', 'from'],
      ['from=2999-12-01&to=3000-01-01', 'to'],
      ['timezone=Mars/Olympus', 'timezone'],
      ['timezone=', 'timezone'],
      ['compare=previous&period=all', 'compare'],
      ['compare=next', 'compare'],
    ]
    it.each(cases)('answers 400 naming the parameter for ?%s', async (query, field) => {
      const id = (await createDynamic(client)).id
      for (const path of [`/qr-codes/${id}/analytics?${query}`, `/analytics?${query}`]) {
        const res = await client.get(path)
        expectError(res, 400, 'validation_error')
        expect(JSON.stringify(res.body.details.issues), path).toContain(`"path":"${field}"`)
      }
      if (!query.startsWith('period') && !query.startsWith('compare')) {
        const scans = await client.get(`/qr-codes/${id}/scans?${query}`)
        expectError(scans, 400, 'validation_error')
      }
    })

    it('answers 404 for an unknown code', async () => {
      expectError(await client.get(`/qr-codes/${MISSING_ID}/scans`), 404, 'not_found')
      expectError(await client.get(`/qr-codes/${MISSING_ID}/analytics?timezone=UTC`), 404, 'not_found')
    })
  })

  describe('security', () => {
    it('answers 404 for another account’s code', async () => {
      const other = await server.createAccount()
      const theirs = await createDynamic(api(server, other.apiKey))
      expectError(await client.get(`/qr-codes/${theirs.id}/scans`), 404, 'not_found')
      expectError(
        await client.get(`/qr-codes/${theirs.id}/analytics?from=2026-01-01&to=2026-01-02`),
        404,
        'not_found',
      )
    })

    it('lets a read key read and refuses a write-only key', async () => {
      const id = (await createDynamic(client)).id
      const reader = await server.createAccount({ scope: 'read' })
      const readerCode = await createCode(client, textCode())
      expect(readerCode.id).toBeTruthy()
      expect((await api(server, reader.apiKey).get('/analytics')).status).toBe(200)
      const writer = await server.createAccount({ scope: 'write' })
      expectError(await api(server, writer.apiKey).get(`/qr-codes/${id}/scans`), 403, 'insufficient_scope')
      expectError(await api(server, writer.apiKey).get('/analytics'), 403, 'insufficient_scope')
    })
  })
})
