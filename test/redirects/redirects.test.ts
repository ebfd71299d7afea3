import { accounts, ManualClock } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Api, api, T0, UNLIMITED } from '../api/helpers.js'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { AGENTS, analytics, counts, createDynamic, PLACES, scan, scanOk, totalScans } from './scan-helpers.js'

describe.each(dialects())('GET /r/{shortCode} on %s', (dialect) => {
  let server: TestServer
  let client: Api
  const clock = new ManualClock(new Date(T0))

  beforeAll(async () => {
    server = await startServer({ dialect, clock, env: { ...UNLIMITED, TRUST_PROXY: 'on' } })
    client = api(server, server.apiKey)
  })
  afterAll(() => server.close())

  describe('happy', () => {
    it('answers 302 to the target with no-store and noindex, and an empty body', async () => {
      const code = await createDynamic(client, 'https://example.com/spring-menu?table=4')
      const res = await scanOk(server, code.shortCode as string)
      expect(res.headers.get('location')).toBe('https://example.com/spring-menu?table=4')
      expect(res.headers.get('cache-control')).toBe('no-store')
      expect(res.headers.get('x-robots-tag')).toBe('noindex')
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.text).toBe('')
    })

    it('is the link the code encodes, and ignores a query string on it', async () => {
      const code = await createDynamic(client)
      expect(code.shortUrl).toBe(`${server.baseUrl}/r/${code.shortCode}`)
      const res = await scanOk(server, `${code.shortUrl}?utm_source=poster`)
      expect(res.headers.get('location')).toBe('https://example.com/landing')
    })

    it('sends the next scan to a PATCHed target at once', async () => {
      const code = await createDynamic(client, 'https://example.com/old')
      expect((await scanOk(server, code.shortCode as string)).headers.get('location')).toBe(
        'https://example.com/old',
      )
      const patched = await client.patch(`/qr-codes/${code.id}`, { targetUrl: 'https://example.com/new' })
      expect(patched.status).toBe(200)
      expect((await scanOk(server, code.shortCode as string)).headers.get('location')).toBe(
        'https://example.com/new',
      )
    })

    it('records device, browser, OS, country, city and referrer of each scan', async () => {
      const code = await createDynamic(client)
      const sc = code.shortCode as string
      await scanOk(server, sc, {
        ua: AGENTS.iphone.ua,
        ip: PLACES.us.ip,
        referer: 'https://news.example.org/a?b=1',
      })
      await scanOk(server, sc, { ua: AGENTS.ipad.ua, ip: PLACES.gb.ip })
      await scanOk(server, sc, {
        ua: AGENTS.windows.ua,
        ip: PLACES.jp.ip,
        referer: 'https://News.Example.org/',
      })
      await scanOk(server, sc, { ua: AGENTS.mac.ua, ip: PLACES.de6.ip, referer: 'not a url' })
      await scanOk(server, sc, { ua: AGENTS.tv.ua, ip: PLACES.private.ip })
      // One trusted proxy (TRUST_PROXY=on): the entry it appended counts; the client's own left-most claim does not.
      await scanOk(server, sc, { ua: AGENTS.android.ua, ip: `${PLACES.jp.ip}, ${PLACES.fr.ip}` })
      const stats = await analytics(server, client, code.id, '7d')
      expect(stats.totalEvents).toBe(6)
      expect(counts(stats.topDevices)).toEqual({ mobile: 2, tablet: 1, desktop: 2, other: 1 })
      expect(counts(stats.topBrowsers)).toEqual({
        'Mobile Safari': 2,
        Chrome: 2,
        Firefox: 1,
        'Samsung Internet': 1,
      })
      expect(counts(stats.topOs)).toEqual({ iOS: 2, Windows: 1, 'Mac OS': 1, Tizen: 1, Android: 1 })
      expect(counts(stats.topCountries)).toEqual({ US: 1, GB: 1, JP: 1, DE: 1, FR: 1, Unknown: 1 })
      expect(counts(stats.topCities)).toEqual({
        'Mountain View': 1,
        London: 1,
        'Chiyoda City': 1,
        'Frankfurt am Main': 1,
        Paris: 1,
        Unknown: 1,
      })
      expect(counts(stats.topReferrers)).toEqual({ 'news.example.org': 2, direct: 3, Unknown: 1 })
    })

    it('counts one visitor per address and user agent', async () => {
      const code = await createDynamic(client)
      const sc = code.shortCode as string
      await scanOk(server, sc, { ua: AGENTS.iphone.ua, ip: PLACES.au.ip })
      await scanOk(server, sc, { ua: AGENTS.iphone.ua, ip: PLACES.au.ip })
      await scanOk(server, sc, { ua: AGENTS.android.ua, ip: PLACES.au.ip })
      await scanOk(server, sc, { ua: AGENTS.iphone.ua, ip: PLACES.gb.ip })
      const stats = await analytics(server, client, code.id)
      expect(stats).toMatchObject({ totalEvents: 4, uniqueVisitors: 3 })
    })

    it('keeps totalScans equal to the period=all totalEvents', async () => {
      const code = await createDynamic(client)
      for (let i = 0; i < 5; i++) await scanOk(server, code.shortCode as string, { ip: `8.8.4.${i}` })
      const stats = await analytics(server, client, code.id, 'all')
      expect(stats.totalEvents).toBe(5)
      expect(await totalScans(client, code.id)).toBe(5)
    })
  })

  describe('not counted', () => {
    const previewers = {
      Slackbot: 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
      Facebook: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
      WhatsApp: 'WhatsApp/2.23.20.0 A',
      Twitterbot: 'Twitterbot/1.0',
      TelegramBot: 'TelegramBot (like TwitterBot)',
      Discordbot: 'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
      LinkedInBot: 'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
      iMessage:
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0',
      Googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      curl: 'curl/8.5.0',
      'no user agent': '',
    }

    it.each(Object.entries(previewers))('redirects %s but does not count it', async (_name, ua) => {
      const code = await createDynamic(client)
      const res = await scanOk(server, code.shortCode as string, { ua, ip: PLACES.us.ip })
      expect(res.headers.get('location')).toBe('https://example.com/landing')
      await scanOk(server, code.shortCode as string, { ua: AGENTS.iphone.ua, ip: PLACES.us.ip })
      const stats = await analytics(server, client, code.id)
      expect(stats.totalEvents).toBe(1)
      expect(await totalScans(client, code.id)).toBe(1)
    })

    it('redirects a HEAD request but does not count it', async () => {
      const code = await createDynamic(client)
      const res = await scan(server, code.shortCode as string, { method: 'HEAD' })
      expect(res.status).toBe(302)
      expect(res.headers.get('location')).toBe('https://example.com/landing')
      expect((await analytics(server, client, code.id)).totalEvents).toBe(0)
    })
  })

  describe('errors', () => {
    it('answers an unknown short code with a 404 page', async () => {
      const res = await scan(server, 'Zz9Zz9Z')
      expect(res.status).toBe(404)
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(res.headers.get('cache-control')).toBe('no-store')
      expect(res.text).toContain('<html lang="en">')
      expect(res.text).toContain('does not exist')
      expect(res.text).toContain('<code>Zz9Zz9Z</code>')
    })

    it('never reflects a malformed short code into the page', async () => {
      const res = await scan(server, `${server.baseUrl}/r/%3Cscript%3Ealert(1)%3C%2Fscript%3E`)
      expect(res.status).toBe(404)
      expect(res.text).not.toMatch(/<script|%3Cscript/i)
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'")
    })

    it('answers 410 for a deleted code, and counts nothing', async () => {
      const code = await createDynamic(client)
      expect((await client.delete(`/qr-codes/${code.id}`)).status).toBe(200)
      const res = await scan(server, code.shortCode as string)
      expect(res.status).toBe(410)
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(res.text).toContain('This code is no longer active')
      expect(res.headers.get('location')).toBeNull()
      await client.post(`/qr-codes/${code.id}/restore`)
      expect((await analytics(server, client, code.id)).totalEvents).toBe(0)
      await scanOk(server, code.shortCode as string)
    })

    it('answers 410 while a code is inactive, and redirects again once it is reactivated', async () => {
      const code = await createDynamic(client)
      await client.patch(`/qr-codes/${code.id}`, { isActive: false })
      expect((await scan(server, code.shortCode as string)).status).toBe(410)
      await client.patch(`/qr-codes/${code.id}`, { isActive: true })
      await scanOk(server, code.shortCode as string)
      expect((await analytics(server, client, code.id)).totalEvents).toBe(1)
    })

    it.each([
      ['canceled', 'pro', 'canceled'],
      ['on the free plan', 'free', 'active'],
    ] as const)('answers 410 when the account is %s', async (_label, plan, status) => {
      const owner = await server.createAccount()
      const code = await createDynamic(api(server, owner.apiKey))
      await scanOk(server, code.shortCode as string)
      await accounts.setPlan(server.ctx, owner.accountId, { plan, subscriptionStatus: status })
      const res = await scan(server, code.shortCode as string)
      expect(res.status).toBe(410)
      expect(res.text).toContain('no longer active')
      await accounts.setPlan(server.ctx, owner.accountId, { plan: 'pro', subscriptionStatus: 'past_due' })
      await scanOk(server, code.shortCode as string)
    })

    it('does not serve static codes (they have no short link)', async () => {
      const res = await client.post('/qr-codes', { name: 's', contentType: 'text', content: 'hello' })
      expect(res.body.data.shortCode).toBeNull()
      expect((await scan(server, 'null')).status).toBe(404)
    })

    it('does not serve a static code even when its row carries a short code', async () => {
      const res = await client.post('/qr-codes', { name: 's', contentType: 'text', content: 'hello' })
      const id = res.body.data.id as string
      await server.ctx.db
        .updateTable('qr_codes')
        .set({ short_code: 'StAtIc1' })
        .where('id', '=', id)
        .execute()
      expect((await scan(server, 'StAtIc1')).status).toBe(404)
      await server.running.scans.flush()
      expect(await totalScans(client, id)).toBe(0)
    })

    it('leaves other methods to the API 404 (POST is the password form, DESIGN §14)', async () => {
      const code = await createDynamic(client)
      for (const method of ['PUT', 'DELETE', 'PATCH']) {
        const res = await fetch(`${server.baseUrl}/r/${code.shortCode}`, { method })
        expect(res.status).toBe(404)
      }
    })
  })
})
