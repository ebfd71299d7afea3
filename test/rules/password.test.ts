import { createHash } from 'node:crypto'
import type { CreateQrCodeInput, QrCode } from '@qrctl/contract'
import { ManualClock, runHousekeeping } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Api, api, createCode, dumpDatabase, dynamicCode, T0, UNLIMITED } from '../api/helpers.js'
import { AGENTS, analytics, counts, totalScans } from '../redirects/scan-helpers.js'
import { captureLogger } from '../support/capture-logger.js'
import { dialects, startServer, type TestServer } from '../support/server.js'

const PASSWORD = 'correct horse 42'
const TARGET = 'https://intranet.example.com/handbook'

describe.each(dialects())('password-protected codes on %s', (dialect) => {
  let server: TestServer
  let client: Api
  const clock = new ManualClock(new Date(T0))
  const capture = captureLogger()

  beforeAll(async () => {
    server = await startServer({
      dialect,
      clock,
      logger: capture.logger,
      env: { ...UNLIMITED, TRUST_PROXY: 'on' },
    })
    client = api(server, server.apiKey)
  })
  afterAll(() => server.close())

  const create = (fields: Record<string, unknown> = {}) =>
    createCode(
      client,
      dynamicCode({
        content: TARGET,
        targetUrl: TARGET,
        password: PASSWORD,
        ...fields,
      } as Partial<CreateQrCodeInput>),
    )
  const show = (code: QrCode, query = '', headers: Record<string, string> = {}) =>
    fetch(`${server.baseUrl}/r/${code.shortCode}${query}`, {
      redirect: 'manual',
      headers: { 'user-agent': AGENTS.iphone.ua, ...headers },
    })
  const post = async (code: QrCode, fields: Record<string, string>, query = '', ip = '203.0.113.9') => {
    const res = await fetch(`${server.baseUrl}/r/${code.shortCode}${query}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': AGENTS.iphone.ua,
        'x-forwarded-for': ip,
      },
      body: new URLSearchParams(fields).toString(),
    })
    return { status: res.status, headers: res.headers, text: await res.text() }
  }

  describe('happy', () => {
    it('shows a no-store, noindex page with a strict CSP and a form that never names the destination', async () => {
      const code = await create({
        rules: [{ targetUrl: 'https://ios.example.com/', conditions: [{ type: 'os', values: ['ios'] }] }],
      })
      const res = await show(code, '?table=4&x=%22a%22', { referer: 'https://news.example.org/post' })
      const html = await res.text()
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(res.headers.get('cache-control')).toBe('no-store')
      expect(res.headers.get('x-robots-tag')).toBe('noindex')
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'.*form-action 'self'/)
      expect(html).toContain(`<form method="post" action="/r/${code.shortCode}?table=4&amp;x=%22a%22">`)
      expect(html).toContain('name="password"')
      expect(html).toContain('value="https://news.example.org/post"')
      expect(html).not.toMatch(/example\.com|scrypt/)
      await server.running.scans.flush()
      expect(await totalScans(client, code.id)).toBe(0)
    })

    it('sends the right password on with the scan’s query, and records one scan with the first referrer', async () => {
      const code = await create({
        forwardQuery: true,
        rules: [{ targetUrl: 'https://example.com/table', conditions: [{ type: 'query', key: 'table' }] }],
      })
      const wrong = await post(
        code,
        { password: 'nope', referrer: 'https://news.example.org/post' },
        '?table=4',
      )
      expect(wrong.status).toBe(401)
      expect(wrong.text).toContain('That password is not right')
      expect(wrong.text).toContain('value="https://news.example.org/post"')
      expect(wrong.text).not.toContain('example.com')
      const right = await post(
        code,
        { password: PASSWORD, referrer: 'https://news.example.org/post' },
        '?table=4',
      )
      expect(right.status).toBe(302)
      expect(right.headers.get('location')).toBe('https://example.com/table?table=4')
      const stats = await analytics(server, client, code.id, '7d')
      expect(stats.totalEvents).toBe(1)
      expect(counts(stats.topReferrers)).toEqual({ 'news.example.org': 1 })
    })

    it('uses up a scan limit only with the right password', async () => {
      const code = await create({ maxScans: 1, afterLimitUrl: 'https://example.com/over' })
      expect((await post(code, { password: 'wrong' })).status).toBe(401)
      expect((await post(code, { password: PASSWORD })).headers.get('location')).toBe(TARGET)
      // Used up: the next scan goes to afterLimitUrl without the password page.
      expect((await show(code)).headers.get('location')).toBe('https://example.com/over')
    })
  })

  describe('errors', () => {
    it('locks one address out for a code after 10 wrong tries until the oldest is 15 minutes old', async () => {
      const code = await create()
      try {
        for (let i = 0; i < 10; i++) {
          expect((await post(code, { password: `wrong ${i}` })).status).toBe(401)
          clock.advance(1_000)
        }
        const locked = await post(code, { password: PASSWORD })
        expect(locked.status).toBe(429)
        expect(locked.headers.get('retry-after')).toBe(String(15 * 60 - 10))
        expect(locked.text).toContain('Too many tries')
        // Another address, or another code, is not locked.
        expect((await post(code, { password: PASSWORD }, '', '198.51.100.1')).status).toBe(302)
        expect((await post(await create(), { password: PASSWORD })).status).toBe(302)
        clock.advance(15 * 60_000 - 10_000)
        expect((await post(code, { password: PASSWORD })).status).toBe(302)
      } finally {
        clock.set(T0)
      }
    })

    it('keeps the count in the database under no raw address, and housekeeping forgets it a window after the newest try', async () => {
      const code = await create()
      const address = '192.0.2.77'
      try {
        for (let i = 0; i < 3; i++)
          expect((await post(code, { password: 'wrong' }, '', address)).status).toBe(401)
        const rows = await server.ctx.db.selectFrom('password_lockouts').selectAll().execute()
        expect(rows.length).toBeGreaterThan(0)
        expect(JSON.stringify(rows)).not.toContain(address)
        expect(await dumpDatabase(server)).not.toContain(address)
        // Within the window the count stays, and still counts.
        clock.advance(15 * 60_000 - 1)
        await runHousekeeping(server.ctx)
        for (let i = 0; i < 7; i++)
          expect((await post(code, { password: 'wrong' }, '', address)).status).toBe(401)
        expect((await post(code, { password: PASSWORD }, '', address)).status).toBe(429)
        // A window after the newest try, housekeeping removes the row; the address may try again.
        clock.advance(15 * 60_000 + 1)
        expect((await runHousekeeping(server.ctx)).purgedPasswordLockouts).toBeGreaterThanOrEqual(1)
        expect((await post(code, { password: PASSWORD }, '', address)).status).toBe(302)
      } finally {
        clock.set(T0)
      }
    })

    it('counts a burst of tries at once exactly: 10 are checked, the rest refused', async () => {
      const code = await create()
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) => post(code, { password: `burst ${i}` }, '', '192.0.2.88')),
      )
      const statuses = answers.map((a) => a.status).sort()
      expect(statuses).toEqual([...Array(10).fill(401), ...Array(6).fill(429)])
    })

    it('clears the count on a right password', async () => {
      const code = await create()
      for (let i = 0; i < 9; i++) expect((await post(code, { password: 'wrong' })).status).toBe(401)
      expect((await post(code, { password: PASSWORD })).status).toBe(302)
      for (let i = 0; i < 10; i++) expect((await post(code, { password: 'wrong' })).status).toBe(401)
      expect((await post(code, { password: PASSWORD })).status).toBe(429)
    })

    it('answers 400 to a form that is not form-encoded or too large', async () => {
      const code = await create()
      const json = await fetch(`${server.baseUrl}/r/${code.shortCode}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ password: PASSWORD }),
        redirect: 'manual',
      })
      expect(json.status).toBe(400)
      expect((await post(code, { password: PASSWORD, filler: 'x'.repeat(10_000) })).status).toBe(400)
    })
  })

  describe('security', () => {
    it('keeps no fast hash of the password: an Idempotency-Key request hash leaves it out', async () => {
      const body = { ...dynamicCode({ content: TARGET, targetUrl: TARGET }), password: PASSWORD }
      const headers = { 'idempotency-key': `pw-${dialect}` }
      const first = await client.post('/qr-codes', body, { headers })
      expect(first.status, first.text).toBe(201)
      const rawHash = createHash('sha256')
        .update(`POST /api/v1/qr-codes\n${JSON.stringify(body)}`)
        .digest('hex')
      expect(await dumpDatabase(server)).not.toContain(rawHash)
      // The same request again is a replay, as it was before passwords existed.
      const again = await client.post('/qr-codes', body, { headers })
      expect(again.headers.get('idempotent-replayed')).toBe('true')
      expect(again.body.data.id).toBe(first.body.data.id)
    })

    it('never answers or logs the password or its hash', async () => {
      const code = await create()
      await post(code, { password: PASSWORD })
      await post(code, { password: 'a wrong guess' })
      const listed = await client.get('/qr-codes?limit=100')
      expect(listed.text).not.toMatch(/correct horse|scrypt/)
      expect(listed.body.data.find((c: QrCode) => c.id === code.id)).toMatchObject({ hasPassword: true })
      expect(capture.text()).not.toMatch(/correct horse|a wrong guess|scrypt/)
    })
  })
})
