import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UNLIMITED } from '../api/helpers.js'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { page, type Session, sessionApi, signIn } from '../web/session-helpers.js'

/**
 * The dashboard's routes outside the contract (/app/login, /app/logout, /app/*, /app/assets/*,
 * DESIGN §19) under generated requests: methods, paths, queries, content types, bodies,
 * cookies, CSRF tokens and origins. Every answer is below 500; none sets a session cookie
 * (no generated request carries a right key or link); and a live session survives them all,
 * since none carries its CSRF token. FUZZ_RUNS / 3 requests per dialect; FUZZ_SEED replays.
 */
const RUNS = Math.max(100, Math.floor(Number(process.env.FUZZ_RUNS ?? 1500) / 3))
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31)

const junk = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '%',
    '%00',
    '%E0%A4%A',
    '..',
    '../..',
    '.%2E',
    '\\',
    '__proto__',
    'qrk_',
    '=',
    ';',
  ),
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.stringMatching(/^[A-Za-z0-9_-]{43}$/),
)

/** What fetch lets into a header value: printable ASCII (anything else never reaches the server). */
const headerJunk = junk.map((s) => s.replace(/[^\x20-\x7e]/g, ''))

/** A path segment: percent-encoded, or raw (stray `%` and all) without the URL's own delimiters. */
const segment = fc
  .tuple(junk, fc.boolean())
  .map(([s, raw]) => (raw ? s.replace(/[/?#]/g, '') : encodeURIComponent(s)))

interface Generated {
  method: string
  path: string
  headers: Record<string, string>
  body: string | undefined
}

function requests(session: () => Session) {
  const path = fc.oneof(
    fc.constant('/app/login'),
    fc.constant('/app/logout'),
    fc.array(segment, { maxLength: 4 }).map((parts) => `/app/${parts.join('/')}`),
    fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/app/assets/${parts.join('/')}`),
  )
  const query = fc.oneof(
    fc.constant(''),
    junk.map((t) => `?token=${encodeURIComponent(t)}`),
    fc
      .array(fc.tuple(junk, junk), { maxLength: 4 })
      .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`),
  )
  const contentType = fc.constantFrom(
    undefined,
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded; charset=latin1',
    'application/json',
    'multipart/form-data; boundary=x',
    'text/plain',
    '',
    ';;;',
  )
  const body = fc.oneof(
    fc.constant(undefined),
    fc
      .array(fc.tuple(fc.constantFrom('apiKey', 'csrfToken', 'apiKey[]', '__proto__', 'x'), junk), {
        maxLength: 5,
      })
      .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')),
    junk,
    fc.constant('a='.repeat(20_000)),
  )
  const cookie = fc.oneof(
    fc.constant(undefined),
    fc.constant('live'),
    headerJunk.map((v) => `qrctl_session=${v}`),
    headerJunk,
  )
  return fc
    .record({
      method: fc.constantFrom('GET', 'GET', 'POST', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'),
      path,
      query,
      contentType,
      body,
      cookie,
      csrf: fc.option(headerJunk, { nil: undefined }),
      origin: fc.option(fc.constantFrom('null', 'https://evil.example', 'http://127.0.0.1', '::'), {
        nil: undefined,
      }),
      site: fc.option(fc.constantFrom('cross-site', 'same-origin', 'none', 'same-site', ''), {
        nil: undefined,
      }),
      address: fc.ipV4(),
    })
    .map((r): Generated => {
      const headers: Record<string, string> = { 'x-forwarded-for': r.address }
      if (r.contentType !== undefined) headers['content-type'] = r.contentType
      if (r.cookie !== undefined) headers.cookie = r.cookie === 'live' ? session().cookie : r.cookie
      if (r.csrf !== undefined) headers['x-csrf-token'] = r.csrf
      if (r.origin !== undefined) headers.origin = r.origin
      if (r.site !== undefined) headers['sec-fetch-site'] = r.site
      const hasBody = r.method !== 'GET' && r.method !== 'HEAD'
      return { method: r.method, path: `${r.path}${r.query}`, headers, body: hasBody ? r.body : undefined }
    })
}

describe.each(dialects())('fuzzing the dashboard routes on %s', (dialect) => {
  let server: TestServer
  let session: Session

  beforeAll(async () => {
    server = await startServer({ dialect, env: { ...UNLIMITED, TRUST_PROXY: 'on' } })
    session = await signIn(server.baseUrl, server.apiKey)
  })
  afterAll(() => server.close())

  it(`answers ${RUNS} generated requests below 500, sets no session cookie, and ends no session (seed ${SEED})`, async () => {
    const generated = fc.sample(
      requests(() => session),
      { numRuns: RUNS, seed: SEED },
    )
    for (const request of generated) {
      let answer: Awaited<ReturnType<typeof page>>
      try {
        answer = await page(server.baseUrl, request.path, {
          method: request.method,
          headers: request.headers,
          ...(request.body !== undefined && { body: request.body }),
        })
      } catch (error) {
        // fetch itself refuses some generated header values or URLs: nothing reached the server.
        if (error instanceof TypeError) continue
        throw error
      }
      const what = `${request.method} ${request.path} ${JSON.stringify(request.headers)} (seed ${SEED})`
      expect(answer.status, what).toBeLessThan(500)
      expect(
        answer.setCookies.filter((c) => /^qrctl_session=[^;]/.test(c)),
        what,
      ).toEqual([])
    }
    expect((await sessionApi(server.baseUrl, session).get('/qr-codes')).status).toBe(200)
  })
})
