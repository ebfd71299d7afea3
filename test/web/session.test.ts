import { ManualClock, sessions } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Api, api, createCode, expectError, textCode, UNLIMITED } from '../api/helpers.js'
import { dialects, startServer, type TestServer } from '../support/server.js'
import {
  csrfTokenOf,
  freshAddress,
  openApp,
  page,
  postLogin,
  postLogout,
  sessionApi,
  sessionCookieOf,
  signIn,
} from './session-helpers.js'

const IDLE_SECONDS = 600
const MAX_SECONDS = 1800

describe.each(dialects())('dashboard sessions on %s', (dialect) => {
  let server: TestServer
  let clock: ManualClock
  let owner: Api

  beforeAll(async () => {
    clock = new ManualClock()
    server = await startServer({
      dialect,
      clock,
      env: {
        ...UNLIMITED,
        // Each test signs in from addresses of its own (session-helpers.ts).
        TRUST_PROXY: 'on',
        SESSION_IDLE_SECONDS: String(IDLE_SECONDS),
        SESSION_MAX_SECONDS: String(MAX_SECONDS),
      },
    })
    owner = api(server, server.apiKey)
  })
  afterAll(() => server.close())

  describe('sign-in page', () => {
    it('is a form with a password input labelled "API key" and a "Sign in" button, one main, no script', async () => {
      const answer = await page(server.baseUrl, '/app/login')
      expect(answer.status).toBe(200)
      expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(answer.text).toMatch(/<label for="api-key">API key<\/label>/)
      expect(answer.text).toMatch(/<input id="api-key" name="apiKey" type="password"/)
      expect(answer.text).toMatch(/<button type="submit">Sign in<\/button>/)
      expect(answer.text).toMatch(/<form method="post" action="\/app\/login">/)
      expect(answer.text.match(/<main[\s>]/g)).toHaveLength(1)
      expect(answer.text).not.toMatch(/<script/i)
      expect(answer.text).not.toMatch(/role="alert"/)
      expect(answer.setCookies).toEqual([])
    })

    it('is sent no-cache under a CSP without script, whose nonce is the one style tag’s, and never framed', async () => {
      const answer = await page(server.baseUrl, '/app/login')
      expect(answer.headers.get('cache-control')).toBe('no-cache')
      const csp = answer.headers.get('content-security-policy') as string
      expect(csp).toContain("default-src 'none'")
      expect(csp).toContain("frame-ancestors 'none'")
      expect(csp).toContain("form-action 'self'")
      expect(csp).not.toContain('script-src')
      const nonce = csp.match(/'nonce-([^']+)'/)?.[1]
      expect(answer.text).toContain(`<style nonce="${nonce}">`)
      expect(answer.headers.get('x-frame-options')).toBe('DENY')
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff')
      // Not no-referrer: under it browsers send `Origin: null` with the form's POST.
      expect(answer.headers.get('referrer-policy')).toBe('same-origin')
      const again = await page(server.baseUrl, '/app/login')
      expect(again.headers.get('content-security-policy')).not.toBe(csp)
    })
  })

  describe('happy', () => {
    it('answers a right key with 303 to /app and an HttpOnly, SameSite=Strict session cookie for the whole site, not Secure on http', async () => {
      const answer = await postLogin(server.baseUrl, server.apiKey)
      expect(answer.status).toBe(303)
      expect(answer.headers.get('location')).toBe('/app')
      expect(answer.setCookies).toHaveLength(1)
      const attributes = (answer.setCookies[0] as string).split('; ')
      expect(attributes[0]).toMatch(/^qrctl_session=[A-Za-z0-9_-]{43}$/)
      expect(attributes.slice(1).sort()).toEqual(
        ['HttpOnly', 'SameSite=Strict', 'Path=/', `Max-Age=${MAX_SECONDS}`].sort(),
      )
      // The key itself is never handed back to the browser.
      expect(answer.setCookies.join()).not.toContain(server.apiKey)
      expect(answer.text).not.toContain(server.apiKey)
    })

    it('acts on /api/v1 as its key with the CSRF token: lists, creates, with the key’s rate-limit bucket', async () => {
      const account = await server.createAccount({ rateLimitPerMinute: 1000 })
      const session = await signIn(server.baseUrl, account.apiKey)
      const browser = sessionApi(server.baseUrl, session)
      const bearer = api(server, account.apiKey)

      const created = await browser.post('/qr-codes', textCode({ name: 'from the dashboard' }))
      expect(created.status, created.text).toBe(201)
      const listed = await browser.get('/qr-codes')
      expect(listed.status).toBe(200)
      expect(listed.body.data.map((c: { name: string }) => c.name)).toEqual(['from the dashboard'])
      // The same account through the key, and nobody else's codes.
      expect((await bearer.get('/qr-codes')).body.total).toBe(1)
      expect((await owner.get(`/qr-codes/${created.body.data.id}`)).status).toBe(404)

      // One bucket: the key's requests and the session's count together.
      const viaKey = await bearer.get('/qr-codes')
      const viaSession = await browser.get('/qr-codes')
      expect(viaKey.headers.get('x-ratelimit-limit')).toBe('1000')
      expect(viaSession.headers.get('x-ratelimit-limit')).toBe('1000')
      expect(Number(viaSession.headers.get('x-ratelimit-remaining'))).toBe(
        Number(viaKey.headers.get('x-ratelimit-remaining')) - 1,
      )
      expect(viaSession.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/)
    })

    it('answers the rate limit of the key to its session: 429 once the key’s minute is spent', async () => {
      const account = await server.createAccount({ rateLimitPerMinute: 3 })
      const session = await signIn(server.baseUrl, account.apiKey)
      const browser = sessionApi(server.baseUrl, session)
      for (let i = 0; i < 3; i++) expect((await browser.get('/qr-codes')).status).toBe(200)
      const limited = await browser.get('/qr-codes')
      expectError(limited, 429, 'rate_limited')
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/)
      expectError(await api(server, account.apiKey).get('/qr-codes'), 429, 'rate_limited')
    })

    it('fetches an image through the fast image path with the session', async () => {
      const session = await signIn(server.baseUrl, server.apiKey)
      const code = await createCode(owner)
      const res = await fetch(`${server.baseUrl}/api/v1/qr-codes/${code.id}/image.svg`, {
        headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken },
      })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toContain('image/svg+xml')
      const refused = await fetch(`${server.baseUrl}/api/v1/qr-codes/${code.id}/image.svg`, {
        headers: { cookie: session.cookie },
      })
      expect(refused.status).toBe(401)
    })

    it('sets Secure on the cookie when PUBLIC_BASE_URL is https', async () => {
      const https = await startServer({ dialect, env: { PUBLIC_BASE_URL: 'https://qr.example.test' } })
      try {
        // Posted from the host the server was reached at, not PUBLIC_BASE_URL's: still its own origin.
        const answer = await postLogin(https.baseUrl, https.apiKey, { origin: https.baseUrl })
        expect(answer.status).toBe(303)
        expect(
          (await postLogin(https.baseUrl, https.apiKey, { origin: 'https://qr.example.test' })).status,
        ).toBe(303)
        expect(
          (await postLogin(https.baseUrl, https.apiKey, { origin: 'https://evil.example' })).status,
        ).toBe(403)
        expect((answer.setCookies[0] as string).split('; ')).toContain('Secure')
        expect(answer.setCookies[0]).toContain('Max-Age=604800')
      } finally {
        await https.close()
      }
    })
  })

  describe('errors', () => {
    it.each([
      ['a wrong key', `qrk_${'A'.repeat(40)}`],
      ['a malformed key', 'not-a-key'],
      ['an empty key', ''],
      ['a key with a character too many', `qrk_${'b'.repeat(41)}`],
    ])('answers %s with 401, the form again with role=alert, and no cookie', async (_name, key) => {
      const answer = await postLogin(server.baseUrl, key)
      expect(answer.status).toBe(401)
      expect(answer.setCookies).toEqual([])
      expect(answer.text).toMatch(/<p class="alert" role="alert" id="login-error">[^<]+<\/p>/)
      expect(answer.text).toMatch(/<input id="api-key" name="apiKey" type="password"/)
      expect(answer.text).toContain('aria-invalid="true"')
    })

    it('ends the session a browser still held when it signs in again', async () => {
      const before = await signIn(server.baseUrl, server.apiKey)
      const again = await postLogin(server.baseUrl, server.apiKey, { cookie: before.cookie })
      expect(again.status).toBe(303)
      expect(sessionCookieOf(again)).not.toBe(before.cookie)
      expectError(await sessionApi(server.baseUrl, before).get('/qr-codes'), 401, 'unauthorized')
      const after = await openApp(server.baseUrl, sessionCookieOf(again) as string)
      expect((await sessionApi(server.baseUrl, after).get('/qr-codes')).status).toBe(200)
    })

    it('answers a revoked key with 401 and no cookie', async () => {
      const created = await owner.post('/api-keys', { name: 'to revoke' })
      await owner.delete(`/api-keys/${created.body.data.id}`)
      const answer = await postLogin(server.baseUrl, created.body.data.secret)
      expect(answer.status).toBe(401)
      expect(answer.setCookies).toEqual([])
      expect(answer.text).toContain('role="alert"')
    })

    it('ignores the cookie without X-CSRF-Token or with a wrong one: 401 with the usual body, nothing created', async () => {
      const session = await signIn(server.baseUrl, server.apiKey)
      const other = await signIn(server.baseUrl, server.apiKey)
      const before = (await owner.get('/qr-codes')).body.total
      const cookieOnly = sessionApi(server.baseUrl, session, false)

      const listed = await cookieOnly.get('/qr-codes')
      expectError(listed, 401, 'unauthorized')
      expect(listed.headers.get('www-authenticate')).toBe('Bearer realm="qrctl"')
      expect(listed.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/)
      // A fetch-style JSON POST with only the cookie.
      expectError(await cookieOnly.post('/qr-codes', textCode({ name: 'csrf' })), 401, 'unauthorized')
      // A cross-site form's POST: urlencoded, the cookie, no token.
      const form = await fetch(`${server.baseUrl}/api/v1/qr-codes`, {
        method: 'POST',
        headers: {
          cookie: session.cookie,
          'content-type': 'application/x-www-form-urlencoded',
          origin: 'https://evil.example',
        },
        body: 'name=csrf&contentType=text&content=pwned',
      })
      expect(form.status).toBe(401)
      expect(((await form.json()) as { error: string }).error).toBe('unauthorized')
      // Wrong tokens: another session's, a mangled one, an empty one, one of the wrong shape.
      for (const token of [other.csrfToken, `${session.csrfToken.slice(0, -1)}x`, '', 'x'.repeat(500)]) {
        const wrong = await cookieOnly.post('/qr-codes', textCode({ name: 'csrf' }), {
          headers: { 'x-csrf-token': token },
        })
        expectError(wrong, 401, 'unauthorized')
      }
      // The token without the cookie is nothing either.
      const tokenOnly = await api(server, '').post('/qr-codes', textCode({ name: 'csrf' }), {
        key: null,
        headers: { 'x-csrf-token': session.csrfToken },
      })
      expectError(tokenOnly, 401, 'unauthorized')
      expect((await owner.get('/qr-codes')).body.total).toBe(before)
      expect((await owner.get('/qr-codes?search=csrf')).body.total).toBe(0)
    })

    it('lets a Bearer key decide over a session: a wrong key is 401, another account’s key acts as that account', async () => {
      const session = await signIn(server.baseUrl, server.apiKey)
      const browser = sessionApi(server.baseUrl, session)
      expectError(await browser.get('/qr-codes', { key: `qrk_${'Z'.repeat(40)}` }), 401, 'unauthorized')
      const other = await server.createAccount()
      const asOther = await browser.post('/qr-codes', textCode({ name: 'bearer wins' }), {
        key: other.apiKey,
      })
      expect(asOther.status).toBe(201)
      expect((await api(server, other.apiKey).get(`/qr-codes/${asOther.body.data.id}`)).status).toBe(200)
      expect((await owner.get(`/qr-codes/${asOther.body.data.id}`)).status).toBe(404)
    })

    it('answers 401 to a cookie of the wrong shape, an unknown one, and several of them', async () => {
      const session = await signIn(server.baseUrl, server.apiKey)
      for (const cookie of [
        'qrctl_session=abc',
        `qrctl_session=${'A'.repeat(43)}`,
        `qrctl_session=${'A'.repeat(5000)}`,
        'qrctl_session=',
        'qrctl_session',
        '; ; =;',
        `qrctl_session="${session.cookie.split('=')[1]}"`,
      ]) {
        const res = await sessionApi(server.baseUrl, { cookie, csrfToken: session.csrfToken }).get(
          '/qr-codes',
        )
        expectError(res, 401, 'unauthorized')
        const app = await page(server.baseUrl, '/app', { headers: { cookie } })
        expect(app.status).toBe(303)
        expect(app.headers.get('location')).toBe('/app/login')
      }
      // Among other cookies, and after a bad one of the same name, the right one still counts.
      const mixed = `theme=dark; qrctl_session=bad; ${session.cookie}; other=1`
      expect((await sessionApi(server.baseUrl, { ...session, cookie: mixed }).get('/qr-codes')).status).toBe(
        200,
      )
    })
  })

  describe('security', () => {
    it('keeps a read key’s session to reading: 403 insufficient_scope on POST, and nothing created', async () => {
      const account = await server.createAccount({ scope: 'read' })
      const session = await signIn(server.baseUrl, account.apiKey)
      const browser = sessionApi(server.baseUrl, session)
      expect((await browser.get('/qr-codes')).status).toBe(200)
      expectError(await browser.post('/qr-codes', textCode()), 403, 'insufficient_scope')
      expectError(await browser.post('/api-keys', { name: 'escalate' }), 403, 'insufficient_scope')
      expect((await browser.get('/qr-codes')).body.total).toBe(0)
    })

    it('answers 403 plan_required to the session of a free account, as to its key', async () => {
      const account = await server.createAccount({ plan: 'free' })
      const session = await signIn(server.baseUrl, account.apiKey)
      expectError(await sessionApi(server.baseUrl, session).get('/qr-codes'), 403, 'plan_required')
    })

    it('signs out only with the token: 403 and the session unchanged without it, then 303 and the cookie is dead', async () => {
      const session = await signIn(server.baseUrl, server.apiKey)
      const browser = sessionApi(server.baseUrl, session)

      for (const token of [undefined, 'wrong', `${session.csrfToken.slice(1)}A`]) {
        const refused = await postLogout(server.baseUrl, session, token)
        expect(refused.status).toBe(403)
        expect(refused.setCookies).toEqual([])
        expect(refused.text).toContain('<main>')
        expect((await browser.get('/qr-codes')).status).toBe(200)
      }
      const signedOut = await postLogout(server.baseUrl, session, session.csrfToken)
      expect(signedOut.status).toBe(303)
      expect(signedOut.headers.get('location')).toBe('/app/login')
      expect(signedOut.setCookies).toHaveLength(1)
      expect(signedOut.setCookies[0]).toMatch(/^qrctl_session=; /)
      expect(signedOut.setCookies[0]).toContain('Max-Age=0')
      expectError(await browser.get('/qr-codes'), 401, 'unauthorized')
      const app = await page(server.baseUrl, '/app', { headers: { cookie: session.cookie } })
      expect(app.status).toBe(303)
    })

    it('signs out with the X-CSRF-Token header too, as a script would', async () => {
      const session = await signIn(server.baseUrl, server.apiKey)
      const answer = await page(server.baseUrl, '/app/logout', {
        method: 'POST',
        headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken },
      })
      expect(answer.status).toBe(303)
      expectError(await sessionApi(server.baseUrl, session).get('/qr-codes'), 401, 'unauthorized')
    })

    it('ends a session idle for SESSION_IDLE_SECONDS, and one in use SESSION_MAX_SECONDS after sign-in', async () => {
      const idle = await signIn(server.baseUrl, server.apiKey)
      const busy = await signIn(server.baseUrl, server.apiKey)
      const idleApi = sessionApi(server.baseUrl, idle)
      const busyApi = sessionApi(server.baseUrl, busy)
      const half = (IDLE_SECONDS / 2) * 1000

      // Unused for a second less than the idle lifetime: alive (and now used).
      clock.advance(IDLE_SECONDS * 1000 - 1000)
      expect((await idleApi.get('/qr-codes')).status).toBe(200)
      expect((await busyApi.get('/qr-codes')).status).toBe(200)
      // `busy` is used every half idle period; `idle` is not used again.
      clock.advance(half)
      expect((await busyApi.get('/qr-codes')).status).toBe(200)
      clock.advance(half)
      expect((await busyApi.get('/qr-codes')).status).toBe(200)
      expectError(await idleApi.get('/qr-codes'), 401, 'unauthorized')
      expect((await page(server.baseUrl, '/app', { headers: { cookie: idle.cookie } })).status).toBe(303)

      // In use all along, `busy` still ends SESSION_MAX_SECONDS after it began.
      let elapsed = 2 * IDLE_SECONDS * 1000 - 1000
      while (elapsed + half < MAX_SECONDS * 1000) {
        clock.advance(half)
        elapsed += half
        expect((await busyApi.get('/qr-codes')).status).toBe(200)
      }
      clock.advance(MAX_SECONDS * 1000 - elapsed)
      expectError(await busyApi.get('/qr-codes'), 401, 'unauthorized')
      expect((await page(server.baseUrl, '/app', { headers: { cookie: busy.cookie } })).status).toBe(303)
    })

    it('ends the sessions of a revoked key at once, on the API and the pages', async () => {
      const created = await owner.post('/api-keys', { name: 'dashboard key' })
      const session = await signIn(server.baseUrl, created.body.data.secret)
      const browser = sessionApi(server.baseUrl, session)
      expect((await browser.get('/qr-codes')).status).toBe(200)
      expect((await owner.delete(`/api-keys/${created.body.data.id}`)).status).toBe(200)
      expectError(await browser.get('/qr-codes'), 401, 'unauthorized')
      expect((await page(server.baseUrl, '/app', { headers: { cookie: session.cookie } })).status).toBe(303)
    })

    it('ends the session of a rotated key when its grace period ends', async () => {
      const created = await owner.post('/api-keys', { name: 'rotated' })
      const session = await signIn(server.baseUrl, created.body.data.secret)
      await owner.post(`/api-keys/${created.body.data.id}/rotate`, { gracePeriodSeconds: 60 })
      expect((await sessionApi(server.baseUrl, session).get('/qr-codes')).status).toBe(200)
      clock.advance(61_000)
      expectError(await sessionApi(server.baseUrl, session).get('/qr-codes'), 401, 'unauthorized')
    })

    it('lets a session revoke its own key, which ends it', async () => {
      const created = await owner.post('/api-keys', { name: 'self' })
      const session = await signIn(server.baseUrl, created.body.data.secret)
      const browser = sessionApi(server.baseUrl, session)
      expect((await browser.delete(`/api-keys/${created.body.data.id}`)).status).toBe(200)
      expectError(await browser.get('/qr-codes'), 401, 'unauthorized')
    })

    it('stores neither the session id nor the key in a column: only hashes', async () => {
      const login = await postLogin(server.baseUrl, server.apiKey)
      const sessionId = (sessionCookieOf(login) as string).split('=')[1] as string
      const rows = await server.ctx.db.selectFrom('sessions').selectAll().execute()
      expect(rows.length).toBeGreaterThan(0)
      const dump = JSON.stringify(rows)
      expect(dump).not.toContain(sessionId)
      expect(dump).not.toContain(server.apiKey)
    })
  })

  describe('login links', () => {
    it('signs in once with a read_write key named "login link", listed and revocable; a second use sets no cookie', async () => {
      const account = await server.createAccount()
      const link = await sessions.createLoginLink(server.ctx, account.accountId)
      expect(link.url).toMatch(new RegExp(`^${server.baseUrl}/app/login\\?token=[A-Za-z0-9_-]{43}$`))
      const path = link.url.slice(server.baseUrl.length)

      const first = await page(server.baseUrl, path)
      expect(first.status).toBe(303)
      expect(first.headers.get('location')).toBe('/app')
      expect(first.headers.get('referrer-policy')).toBe('no-referrer')
      const cookie = sessionCookieOf(first) as string
      expect(first.setCookies[0]).toContain('HttpOnly')
      const session = await openApp(server.baseUrl, cookie)
      const browser = sessionApi(server.baseUrl, session)
      expect((await browser.post('/qr-codes', textCode())).status).toBe(201)

      const keys = (await api(server, account.apiKey).get('/api-keys')).body.data as {
        id: string
        name: string
        scope: string
      }[]
      const made = keys.find((key) => key.name === 'login link')
      expect(made?.scope).toBe('read_write')

      const second = await page(server.baseUrl, path)
      expect(second.status).toBe(401)
      expect(second.setCookies).toEqual([])
      expect(second.text).toMatch(/role="alert"[^>]*>[^<]*(used|expired)/)
      expect(second.text).toMatch(/<button type="submit">Sign in<\/button>/)

      // Revoking the key it made ends the link's session.
      await api(server, account.apiKey).delete(`/api-keys/${made?.id}`)
      expectError(await browser.get('/qr-codes'), 401, 'unauthorized')
    })

    it('shows the error and sets no cookie for a link 15 minutes old', async () => {
      const link = await sessions.createLoginLink(server.ctx, server.accountId)
      clock.advance(15 * 60_000)
      const answer = await page(server.baseUrl, link.url.slice(server.baseUrl.length))
      expect(answer.status).toBe(401)
      expect(answer.setCookies).toEqual([])
      expect(answer.text).toContain('role="alert"')
    })

    it('works just before its 15 minutes are up', async () => {
      const link = await sessions.createLoginLink(server.ctx, server.accountId)
      clock.advance(15 * 60_000 - 1000)
      const answer = await page(server.baseUrl, link.url.slice(server.baseUrl.length))
      expect(answer.status).toBe(303)
    })

    it('lets one of two concurrent uses win, and only one key is made', async () => {
      const account = await server.createAccount()
      const link = await sessions.createLoginLink(server.ctx, account.accountId)
      const path = link.url.slice(server.baseUrl.length)
      const answers = await Promise.all([1, 2, 3, 4].map(() => page(server.baseUrl, path)))
      expect(answers.map((a) => a.status).sort()).toEqual([303, 401, 401, 401])
      expect(answers.filter((a) => sessionCookieOf(a))).toHaveLength(1)
      const keys = (await api(server, account.apiKey).get('/api-keys')).body.data as { name: string }[]
      expect(keys.filter((key) => key.name === 'login link')).toHaveLength(1)
    })

    it.each([
      ['an unknown token', `token=${'A'.repeat(43)}`],
      ['a malformed token', 'token=..%2F..%2Fetc'],
      ['an empty token', 'token='],
      ['a repeated token', `token=${'A'.repeat(43)}&token=${'B'.repeat(43)}`],
      ['a huge token', `token=${'A'.repeat(6000)}`],
    ])('shows the sign-in page with an error for %s, and no cookie', async (_name, query) => {
      const answer = await page(server.baseUrl, `/app/login?${query}`)
      expect(answer.status).toBe(401)
      expect(answer.setCookies).toEqual([])
      expect(answer.text).toContain('role="alert"')
    })

    it('refuses a link for an account that does not exist', async () => {
      await expect(
        sessions.createLoginLink(server.ctx, '00000000-0000-4000-8000-000000000000'),
      ).rejects.toThrow(/account/)
    })
  })

  describe('the app', () => {
    it.each(['/app', '/app/', '/app/codes/x', '/app/keys', '/app/codes/new', '/app/analytics'])(
      'sends a signed-out visitor of %s to /app/login',
      async (path) => {
        const answer = await page(server.baseUrl, path)
        expect(answer.status).toBe(303)
        expect(answer.headers.get('location')).toBe('/app/login')
        expect(answer.text).not.toContain('csrf-token')
      },
    )

    it('serves index.html no-cache, with a CSP nonce that is the script tag’s, fresh each time, and the session’s CSRF token', async () => {
      const session = await signIn(server.baseUrl, server.apiKey)
      const nonces = new Set<string>()
      for (const path of ['/app', '/app/codes/new', '/app/keys']) {
        const answer = await page(server.baseUrl, path, { headers: { cookie: session.cookie } })
        expect(answer.status).toBe(200)
        expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8')
        expect(answer.headers.get('cache-control')).toBe('no-cache')
        expect(answer.headers.get('x-frame-options')).toBe('DENY')
        expect(answer.headers.get('x-content-type-options')).toBe('nosniff')
        expect(answer.headers.get('referrer-policy')).toBe('same-origin')
        const csp = answer.headers.get('content-security-policy') as string
        const nonce = csp.match(/script-src 'nonce-([A-Za-z0-9+/=]+)'/)?.[1] as string
        expect(nonce).toBeDefined()
        for (const part of [
          "style-src 'self'",
          "img-src 'self' data: blob:",
          "connect-src 'self'",
          "object-src 'none'",
          "base-uri 'none'",
          "form-action 'self'",
          "frame-ancestors 'none'",
        ])
          expect(csp).toContain(part)
        expect(csp).not.toContain('unsafe-inline')
        const scripts = [...answer.text.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])
        expect(scripts.length).toBeGreaterThan(0)
        for (const script of scripts) expect(script).toContain(`nonce="${nonce}"`)
        expect(answer.text).not.toContain('__CSP_NONCE__')
        expect(answer.text).not.toContain('__CSRF_TOKEN__')
        expect(csrfTokenOf(answer.text)).toBe(session.csrfToken)
        nonces.add(nonce)
      }
      expect(nonces.size).toBe(3)
    })

    it('serves the hashed assets for a year, immutable, with their types, gzipped when accepted', async () => {
      const session = await signIn(server.baseUrl, server.apiKey)
      const index = await page(server.baseUrl, '/app', { headers: { cookie: session.cookie } })
      const assets = [...index.text.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map(
        (m) => m[1] as string,
      )
      expect(assets.some((a) => a.endsWith('.js'))).toBe(true)
      expect(assets.some((a) => a.endsWith('.css'))).toBe(true)
      for (const asset of assets) {
        // No cookie needed: the files hold no data, and a cached file serves every session.
        const plain = await page(server.baseUrl, asset, { headers: { 'accept-encoding': 'identity' } })
        expect(plain.status).toBe(200)
        expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
        expect(plain.headers.get('content-type')).toBe(
          asset.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
        )
        expect(plain.headers.get('content-encoding')).toBeNull()
        const etag = plain.headers.get('etag') as string
        const revalidated = await page(server.baseUrl, asset, { headers: { 'if-none-match': etag } })
        expect(revalidated.status).toBe(304)
        const raw = await fetch(`${server.baseUrl}${asset}`, { headers: { 'accept-encoding': 'gzip' } })
        // fetch inflates what it is sent: the same bytes either way.
        expect(await raw.text()).toBe(plain.text)
        if (plain.text.length > 1024) expect(raw.headers.get('content-encoding')).toBe('gzip')
      }
    })

    it.each([
      '/app/assets/',
      '/app/assets/missing-ABC.js',
      '/app/assets/..%2Findex.html',
      '/app/assets/..%5Cindex.html',
      '/app/assets/..%2F..%2Fpackage.json',
      '/app/assets/.hidden',
      '/app/assets/a/b/c/d/e/f.js',
      '/app/assets/%00.js',
    ])('answers 404 (never a file outside the assets) to %s', async (path) => {
      const answer = await page(server.baseUrl, path)
      expect(answer.status).toBe(404)
      expect(answer.text).not.toContain('"name"')
      expect(answer.text).not.toContain('csrf-token')
    })
  })

  describe('robustness', () => {
    it('refuses sign-in posts from another site (Origin, Sec-Fetch-Site) with 403 and no cookie', async () => {
      for (const headers of [
        { origin: 'https://evil.example' } as Record<string, string>,
        { origin: 'null' },
        { origin: 'not a url' },
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site' },
      ]) {
        const answer = await postLogin(server.baseUrl, server.apiKey, headers)
        expect(answer.status).toBe(403)
        expect(answer.setCookies).toEqual([])
      }
      // The server's own origin, by PUBLIC_BASE_URL or by the Host it was reached at.
      const own = await postLogin(server.baseUrl, server.apiKey, {
        origin: server.baseUrl,
        'sec-fetch-site': 'same-origin',
      })
      expect(own.status).toBe(303)
      // A browser that says same-origin is believed, whatever Origin it sends (Chromium sends
      // `null` from a page under Referrer-Policy: no-referrer).
      const nullOrigin = await postLogin(server.baseUrl, server.apiKey, {
        origin: 'null',
        'sec-fetch-site': 'same-origin',
      })
      expect(nullOrigin.status).toBe(303)
    })

    it('limits failed sign-ins per client address: the 11th in a minute is 429, right keys do not count', async () => {
      const address = { 'x-forwarded-for': '192.0.2.77' }
      for (let i = 0; i < 5; i++)
        expect((await postLogin(server.baseUrl, server.apiKey, address)).status).toBe(303)
      for (let i = 0; i < 10; i++)
        expect((await postLogin(server.baseUrl, `qrk_${'Q'.repeat(40)}`, address)).status).toBe(401)
      const limited = await postLogin(server.baseUrl, `qrk_${'Q'.repeat(40)}`, address)
      expect(limited.status).toBe(429)
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/)
      expect(limited.text).toContain('role="alert"')
      // Over the limit, even the right key waits: guessing at speed is what is stopped.
      const right = await postLogin(server.baseUrl, server.apiKey, address)
      expect(right.status).toBe(429)
      expect(right.setCookies).toEqual([])
      expect(
        (await page(server.baseUrl, `/app/login?token=${'A'.repeat(43)}`, { headers: address })).status,
      ).toBe(429)
      // Another address is not affected.
      expect((await postLogin(server.baseUrl, server.apiKey)).status).toBe(303)
    })

    const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
    it.each<[string, { headers?: Record<string, string>; body?: string | Uint8Array }, number]>([
      ['a JSON body', { headers: { 'content-type': 'application/json' }, body: '{"apiKey":"x"}' }, 400],
      ['no body', {}, 400],
      [
        'a multipart body',
        { headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x--' },
        400,
      ],
      ['a text body', { headers: { 'content-type': 'text/plain' }, body: 'apiKey=x' }, 400],
      ['a body over 16 KiB', { headers: FORM, body: `apiKey=${'a'.repeat(20_000)}` }, 413],
      ['a gzip-encoded body', { headers: { ...FORM, 'content-encoding': 'gzip' }, body: 'apiKey=x' }, 400],
      [
        'a body in another charset',
        { headers: { 'content-type': `${FORM['content-type']}; charset=latin9` }, body: 'apiKey=x' },
        400,
      ],
      ['bad percent-encoding', { headers: FORM, body: 'apiKey=%E0%A4%A&%%%' }, 401],
      ['a repeated field', { headers: FORM, body: 'apiKey=a&apiKey=b' }, 401],
      ['bracket fields', { headers: FORM, body: 'apiKey[x]=a&__proto__[y]=1' }, 401],
      [
        'too many fields',
        { headers: FORM, body: Array.from({ length: 50 }, (_, i) => `f${i}=1`).join('&') },
        400,
      ],
      ['binary junk', { headers: FORM, body: new Uint8Array([0, 255, 254, 1, 2, 3]) }, 401],
      ['a NUL in the key', { headers: FORM, body: 'apiKey=qrk_%00' }, 401],
    ])('answers POST /app/login with %s with a 4xx page', async (_name, init, status) => {
      const answer = await page(server.baseUrl, '/app/login', {
        method: 'POST',
        ...init,
        headers: { 'x-forwarded-for': freshAddress(), ...init.headers },
      })
      expect(answer.status).toBe(status)
      expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(answer.setCookies).toEqual([])
      expect(answer.text).toContain('<main>')
    })

    it('answers junk to /app/logout and the app with 4xx, never 5xx', async () => {
      const session = await signIn(server.baseUrl, server.apiKey)
      const attempts: [string, string, { headers?: Record<string, string>; body?: string }][] = [
        [
          'POST',
          '/app/logout',
          { headers: { ...FORM, cookie: session.cookie }, body: `csrfToken=${'a'.repeat(20_000)}` },
        ],
        [
          'POST',
          '/app/logout',
          { headers: { 'content-type': 'application/json', cookie: session.cookie }, body: '{' },
        ],
        [
          'POST',
          '/app/logout',
          { headers: { ...FORM, cookie: session.cookie }, body: 'csrfToken=a&csrfToken=b' },
        ],
        ['POST', '/app/logout', { headers: { ...FORM, cookie: session.cookie, 'x-csrf-token': '' } }],
        ['POST', '/app', { headers: { cookie: session.cookie } }],
        ['PUT', '/app/login', {}],
        ['DELETE', '/app/keys', { headers: { cookie: session.cookie } }],
        ['GET', '/app/%E0%A4%A', { headers: { cookie: session.cookie } }],
        ['GET', `/app/${'x'.repeat(4000)}`, {}],
      ]
      for (const [method, path, init] of attempts) {
        const answer = await page(server.baseUrl, path, { method, ...init })
        expect(answer.status, `${method} ${path}`).toBeGreaterThanOrEqual(300)
        expect(answer.status, `${method} ${path}`).toBeLessThan(500)
      }
      // A broken URL under /app is a page too, not the API's JSON.
      for (const path of ['/app/%E0%A4%A', '/app/assets/%E0%A4%A', '/app/login/%ZZ']) {
        const broken = await page(server.baseUrl, path, { headers: { cookie: session.cookie } })
        expect(broken.status, path).toBeGreaterThanOrEqual(400)
        expect(broken.status, path).toBeLessThan(500)
        expect(broken.headers.get('content-type'), path).toBe('text/html; charset=utf-8')
        expect(broken.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'")
      }
      // A query the sign-in page does not know is no token: the plain form.
      expect((await page(server.baseUrl, '/app/login?token[a]=1&x=%E0%A4%A')).status).toBe(200)
      // None of that ended the session.
      expect((await sessionApi(server.baseUrl, session).get('/qr-codes')).status).toBe(200)
    })
  })
})
