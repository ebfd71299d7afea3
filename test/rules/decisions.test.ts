import type { CreateQrCodeInput, QrCode } from '@qrctl/contract'
import { ManualClock } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Api, api, createCode, dynamicCode, T0, UNLIMITED } from '../api/helpers.js'
import { AGENTS, analytics, counts, PLACES, scan, totalScans } from '../redirects/scan-helpers.js'
import { dialects, startServer, type TestServer } from '../support/server.js'

const BOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'
const TARGET = 'https://example.com/landing'

describe.each(dialects())('the decisions at GET /r/{code} on %s', (dialect) => {
  let server: TestServer
  let client: Api
  const clock = new ManualClock(new Date(T0))

  beforeAll(async () => {
    server = await startServer({ dialect, clock, env: { ...UNLIMITED, TRUST_PROXY: 'on' } })
    client = api(server, server.apiKey)
  })
  afterAll(() => server.close())

  const create = (fields: Record<string, unknown>) =>
    createCode(
      client,
      dynamicCode({ content: TARGET, targetUrl: TARGET, ...fields } as Partial<CreateQrCodeInput>),
    )
  const go = async (code: QrCode, options: Parameters<typeof scan>[2] & { query?: string } = {}) => {
    const res = await scan(server, `${code.shortCode}${options.query ?? ''}`, options)
    return { status: res.status, location: res.headers.get('location'), text: res.text, headers: res.headers }
  }
  const scans = async (code: QrCode) => {
    await server.running.scans.flush()
    return totalScans(client, code.id)
  }

  describe('rules', () => {
    it('sends iPhones to the App Store, Android to Google Play, the rest to targetUrl', async () => {
      const code = await create({
        rules: [
          { targetUrl: 'https://apps.apple.com/app/id1', conditions: [{ type: 'os', values: ['ios'] }] },
          {
            targetUrl: 'https://play.google.com/store/apps/details?id=x',
            conditions: [{ type: 'os', values: ['android'] }],
          },
        ],
      })
      expect((await go(code, { ua: AGENTS.iphone.ua })).location).toBe('https://apps.apple.com/app/id1')
      expect((await go(code, { ua: AGENTS.ipad.ua })).location).toBe('https://apps.apple.com/app/id1')
      expect((await go(code, { ua: AGENTS.android.ua })).location).toBe(
        'https://play.google.com/store/apps/details?id=x',
      )
      expect((await go(code, { ua: AGENTS.windows.ua })).location).toBe(TARGET)
      expect(await scans(code)).toBe(4)
    })

    it('decides by device class, country (GeoIP), language and query parameter', async () => {
      const code = await create({
        rules: [
          { targetUrl: 'https://example.com/tablet', conditions: [{ type: 'device', values: ['tablet'] }] },
          { targetUrl: 'https://example.com/de', conditions: [{ type: 'country', values: ['DE', 'AT'] }] },
          { targetUrl: 'https://example.com/fr', conditions: [{ type: 'language', values: ['fr'] }] },
          { targetUrl: 'https://example.com/vip', conditions: [{ type: 'query', key: 'vip', value: '1' }] },
        ],
      })
      expect((await go(code, { ua: AGENTS.ipad.ua })).location).toBe('https://example.com/tablet')
      expect((await go(code, { ip: PLACES.de6.ip })).location).toBe('https://example.com/de')
      expect((await go(code, { ip: PLACES.us.ip })).location).toBe(TARGET)
      const french = { ip: PLACES.us.ip, headers: { 'accept-language': 'en;q=0.3, fr-CA;q=0.8, *' } }
      expect((await go(code, french)).location).toBe('https://example.com/fr')
      expect((await go(code, { query: '?vip=1' })).location).toBe('https://example.com/vip')
      expect((await go(code, { query: '?vip=2' })).location).toBe(TARGET)
      // Each scan is recorded with the device and place its rules were decided on.
      const stats = await analytics(server, client, code.id)
      expect(counts(stats.topDevices)).toEqual({ mobile: 5, tablet: 1 })
      expect(counts(stats.topCountries)).toEqual({ DE: 1, US: 2, Unknown: 3 })
      expect(counts(stats.topCities)).toEqual({ 'Frankfurt am Main': 1, 'Mountain View': 2, Unknown: 3 })
    })

    it('serves the lunch menu from 11 to 15 and the dinner menu after, in the rule’s zone', async () => {
      const code = await create({
        rules: [
          {
            targetUrl: 'https://example.com/lunch',
            conditions: [{ type: 'schedule', timezone: 'Europe/Berlin', from: '11:00', to: '15:00' }],
          },
          {
            targetUrl: 'https://example.com/dinner',
            conditions: [{ type: 'schedule', timezone: 'Europe/Berlin', from: '17:00', to: '23:00' }],
          },
        ],
      })
      try {
        clock.set('2026-07-01T09:30:00Z') // 11:30 in Berlin (summer time)
        expect((await go(code)).location).toBe('https://example.com/lunch')
        clock.set('2026-07-01T13:00:00Z') // 15:00
        expect((await go(code)).location).toBe(TARGET)
        clock.set('2026-12-01T16:30:00Z') // 17:30 in Berlin (winter time)
        expect((await go(code)).location).toBe('https://example.com/dinner')
      } finally {
        clock.set(T0)
      }
    })
  })

  describe('order of decisions', () => {
    it('answers an expired code with expiredUrl before the limit and the password, without UTM', async () => {
      const code = await create({
        expiresAt: '2020-01-01T00:00:00Z',
        expiredUrl: 'https://example.com/over',
        maxScans: 1,
        afterLimitUrl: 'https://example.com/gone',
        password: 'secret',
        utm: { source: 'poster' },
      })
      expect(await go(code)).toMatchObject({ status: 302, location: 'https://example.com/over' })
      expect(await scans(code)).toBe(1)
    })

    it('answers 410 "expired" without expiredUrl, from the expiresAt instant on, and counts no scan', async () => {
      const code = await create({ expiresAt: new Date(Date.parse(T0) + 60_000).toISOString() })
      expect((await go(code)).location).toBe(TARGET)
      clock.advance(60_000)
      try {
        const res = await go(code)
        expect(res.status).toBe(410)
        expect(res.text).toContain('This code has expired')
        expect(res.headers.get('cache-control')).toBe('no-store')
        expect(await scans(code)).toBe(1)
        // Clearing expiresAt revives it at the next scan.
        await client.patch(`/qr-codes/${code.id}`, { expiresAt: null })
        expect((await go(code)).location).toBe(TARGET)
      } finally {
        clock.set(T0)
      }
    })

    it('sends scans past the limit to afterLimitUrl (uncounted against it, no UTM), or a 410 page', async () => {
      const code = await create({
        maxScans: 2,
        afterLimitUrl: 'https://example.com/all-gone',
        utm: { source: 'x' },
      })
      expect((await go(code)).location).toBe(`${TARGET}?utm_source=x`)
      expect((await go(code)).location).toBe(`${TARGET}?utm_source=x`)
      expect((await go(code)).location).toBe('https://example.com/all-gone')
      expect((await go(code)).location).toBe('https://example.com/all-gone')
      expect(await scans(code)).toBe(4)
      await client.patch(`/qr-codes/${code.id}`, { afterLimitUrl: null })
      const res = await go(code)
      expect(res.status).toBe(410)
      expect(res.text).toContain('This code has reached its scan limit')
      expect(await scans(code)).toBe(4)
    })

    it('closes a code at once when maxScans is set at or below its scans, and reopens it when raised or cleared', async () => {
      const code = await create({})
      await go(code)
      await go(code)
      await server.running.scans.flush()
      await client.patch(`/qr-codes/${code.id}`, { maxScans: 2 })
      expect((await go(code)).status).toBe(410)
      await client.patch(`/qr-codes/${code.id}`, { maxScans: 3 })
      expect((await go(code)).location).toBe(TARGET)
      expect((await go(code)).status).toBe(410)
      await client.patch(`/qr-codes/${code.id}`, { maxScans: null })
      expect((await go(code)).location).toBe(TARGET)
    })

    it('lets bots and HEAD follow the decisions without using up the limit or being counted', async () => {
      const code = await create({ maxScans: 1, afterLimitUrl: 'https://example.com/all-gone' })
      expect((await go(code, { ua: BOT })).location).toBe(TARGET)
      expect((await go(code, { method: 'HEAD' })).location).toBe(TARGET)
      expect((await go(code)).location).toBe(TARGET)
      expect((await go(code, { ua: BOT })).location).toBe('https://example.com/all-gone')
      expect((await go(code, { method: 'HEAD' })).location).toBe('https://example.com/all-gone')
      expect(await scans(code)).toBe(1)
    })

    it('shows the password page (200, no scan) before the rules', async () => {
      const code = await create({
        password: 'secret',
        rules: [{ targetUrl: 'https://example.com/ios', conditions: [{ type: 'os', values: ['ios'] }] }],
      })
      const res = await go(code)
      expect(res.status).toBe(200)
      expect(res.text).not.toContain('example.com')
      expect(await scans(code)).toBe(0)
    })

    it('keeps 404 for unknown codes and 410 for paused ones, whatever their rules', async () => {
      const code = await create({
        expiredUrl: 'https://example.com/over',
        afterLimitUrl: 'https://example.com/gone',
      })
      await client.patch(`/qr-codes/${code.id}`, { isActive: false, expiresAt: '2020-01-01T00:00:00Z' })
      const res = await go(code)
      expect(res.status).toBe(410)
      expect(res.text).toContain('no longer active')
      expect((await scan(server, 'Nope123')).status).toBe(404)
    })
  })

  describe('security', () => {
    it('answers hostile queries, headers and forms without a 500', async () => {
      const code = await create({
        forwardQuery: true,
        utm: { source: 'x' },
        rules: [
          {
            targetUrl: 'https://example.com/a',
            conditions: [
              { type: 'language', values: ['de'] },
              { type: 'country', values: ['DE'] },
            ],
          },
          { targetUrl: 'https://example.com/b', conditions: [{ type: 'query', key: '\u00fc', value: '%' }] },
          {
            targetUrl: 'https://example.com/c',
            conditions: [
              { type: 'schedule', timezone: 'Asia/Kathmandu', days: ['sun'], from: '23:45', to: '00:15' },
            ],
          },
        ],
      })
      const locked = await create({ password: 'secret', forwardQuery: true })
      const queries = [
        '?%E0%A4%A',
        '?a=%FF%FE',
        '?=&&=&a',
        `?${'x'.repeat(8000)}=1`,
        '?a=1#frag',
        '?%00=%00',
        '?a=%F0%9F%98%80&a=2',
      ]
      const headers: Record<string, string>[] = [
        { 'accept-language': ';q=abc, *;q=NaN, de;q=-1, ,,,' },
        { 'accept-language': 'x'.repeat(8000) },
        { 'x-forwarded-for': 'not an address, ::ffff:999.1.1.1' },
        { 'user-agent': '\t' },
        { referer: 'javascript:alert(1)' },
      ]
      for (const query of queries)
        for (const extra of headers) {
          const res = await go(code, { query, headers: extra })
          expect(res.status, `${query} ${JSON.stringify(extra).slice(0, 80)}`).toBe(302)
          expect(res.location).toMatch(/^https:\/\/example\.com\/[^\s]*$/)
          const page = await go(locked, { query, headers: extra })
          expect(page.status).toBe(200)
        }
      const forms = [
        Buffer.from([0xff, 0xfe, 0x3d, 0x00, 0x26]),
        'password=%FF%FE&password=secret',
        'password=secret&referrer=%E0%A4%A',
        `referrer=${'r'.repeat(7000)}`,
      ]
      for (const body of forms) {
        const res = await fetch(`${server.baseUrl}/r/${locked.shortCode}?%E0%A4%A`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body,
        })
        expect([302, 401]).toContain(res.status)
      }
    })
  })

  describe('UTM and query pass-through', () => {
    it('adds utm_* and the scan’s query, percent-encoded; the destination’s own parameters win', async () => {
      const code = await create({
        targetUrl: 'https://example.com/p?keep=own&utm_medium=own#frag',
        utm: { source: 'poster & flyer', medium: 'print', campaign: 'ünï #1' },
        forwardQuery: true,
      })
      const res = await go(code, {
        query: '?q=a%20b+c&amp=%26&hash=%23x&uni=%C3%BC&keep=visitor&utm_source=visitor',
      })
      expect(res.location).toBe(
        'https://example.com/p?keep=own&utm_medium=own&utm_source=poster%20%26%20flyer&utm_campaign=%C3%BCn%C3%AF%20%231' +
          '&q=a%20b%20c&amp=%26&hash=%23x&uni=%C3%BC#frag',
      )
      const url = new URL(res.location as string)
      expect(Object.fromEntries(url.searchParams)).toEqual({
        keep: 'own',
        utm_medium: 'own',
        utm_source: 'poster & flyer',
        utm_campaign: 'ünï #1',
        q: 'a b c',
        amp: '&',
        hash: '#x',
        uni: 'ü',
      })
      expect(url.hash).toBe('#frag')
    })

    it('ignores the scan’s query without forwardQuery, and adds UTM to a rule’s destination', async () => {
      const code = await create({
        utm: { source: 'qr' },
        rules: [{ targetUrl: 'https://example.com/ios', conditions: [{ type: 'os', values: ['ios'] }] }],
      })
      expect((await go(code, { query: '?x=1' })).location).toBe('https://example.com/ios?utm_source=qr')
      expect((await go(code, { ua: AGENTS.android.ua, query: '?x=1' })).location).toBe(
        `${TARGET}?utm_source=qr`,
      )
    })
  })
})
