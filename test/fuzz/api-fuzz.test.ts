import { gzipSync } from 'node:zlib'
import { contract } from '@qrctl/contract'
import type { AppRoute } from '@ts-rest/core'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, createCode, dynamicCode, textCode } from '../api/helpers.js'
import { type Dialect, dialects, startServer, type TestServer } from '../support/server.js'

/**
 * Issue #12, item 8. Property-based requests for every route in the contract (found by walking
 * the ts-rest contract object, so a new route is fuzzed without touching this file): valid,
 * invalid and adversarial bodies, queries, path ids and headers. Every answer must be below
 * 500; every failure the contract's `{ error, details: { message } }` with `X-Request-Id`; and
 * a rejected request must change nothing (codes, showcases and keys fingerprinted before and
 * after it). FUZZ_RUNS sets how many requests per dialect (CI: 1,500; `npm run fuzz`: 10,000),
 * FUZZ_SEED replays a run.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1500)
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31)

interface Route {
  name: string
  route: AppRoute
}

function routesOf(router: object, prefix = ''): Route[] {
  return Object.entries(router).flatMap(([key, value]): Route[] => {
    if (typeof value !== 'object' || value === null) return []
    if ('method' in value && 'path' in value) return [{ name: `${prefix}${key}`, route: value as AppRoute }]
    return routesOf(value, `${prefix}${key}.`)
  })
}

const ROUTES = routesOf(contract)

const ADVERSARIAL_STRINGS = [
  '',
  ' ',
  '../../etc/passwd',
  '%00',
  '\u0000',
  '\ud800',
  '💥'.repeat(50),
  'a'.repeat(5000),
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  // A template-injection probe, meant literally.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: see above
  '${7*7}',
  'null',
  'NaN',
  '-1',
  '1e309',
  '__proto__',
  'constructor',
]

const jsonValue = fc.oneof(
  { depthSize: 'small' },
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(...ADVERSARIAL_STRINGS),
  fc.constantFrom(null, true, 0, -1, 1.5, 2 ** 53, [], {}),
)

/** Sensible bodies per route, which the fuzzer sends as they are or mutated. */
function validBodies(codeId: string): Record<string, unknown[]> {
  return {
    'qrCodes.create': [
      dynamicCode(),
      textCode(),
      { name: 'wifi', contentType: 'wifi', content: { ssid: 'x' } },
    ],
    'qrCodes.update': [{ name: 'renamed' }, { isActive: false }, { targetUrl: 'https://example.com/new' }],
    'qrCodes.batch': [{ codes: [textCode(), dynamicCode()] }, { codes: [textCode(), { name: 1 }] }],
    'showcases.create': [
      { qrCodeId: codeId, title: 'Fuzz page' },
      { qrCodeId: codeId, title: 'x', slug: 'fuzz-page' },
    ],
    'showcases.update': [{ title: 'New title' }, { template: 'minimal' }],
    'apiKeys.create': [{ name: 'fuzz key', scope: 'read' }],
    'apiKeys.rotate': [{ gracePeriodSeconds: 0 }, {}],
    // IP literals only: a host name would be resolved, and tests send nothing off loopback.
    'webhooks.create': [
      { url: 'http://127.0.0.1:9/fuzz', events: ['*'] },
      { url: 'http://127.0.0.2:9/fuzz', events: ['scan.created'], qrCodeIds: [codeId] },
    ],
    'webhooks.update': [{ description: 'fuzz' }, { isActive: false }, { events: ['qr_code.created'] }],
  }
}

/**
 * `body` with one more own field, which may be named `__proto__`: JSON.parse makes it an own
 * property, as the server's body parser does, where a spread or assignment would set the prototype.
 */
function withField(body: unknown, key: string, value: unknown): unknown {
  const rest = JSON.stringify(body).slice(1, -1)
  return JSON.parse(`{${JSON.stringify(key)}:${JSON.stringify(value)}${rest ? `,${rest}` : ''}}`)
}

/** A valid body with one field dropped, replaced, or an unknown (or prototype-named) field added. */
function mutated(body: unknown) {
  const keys = typeof body === 'object' && body !== null && !Array.isArray(body) ? Object.keys(body) : []
  return fc.oneof(
    fc.constant(body),
    jsonValue,
    fc
      .tuple(
        fc.constantFrom('__proto__', 'constructor', 'toString', 'target_url', 'extra', 'name'),
        jsonValue,
      )
      .map(([key, value]) => withField(body, key, value)),
    ...(keys.length
      ? [
          fc
            .tuple(fc.constantFrom(...keys), jsonValue)
            .map(([key, value]) => ({ ...(body as object), [key]: value })),
          fc.constantFrom(...keys).map((key) => {
            const copy = { ...(body as Record<string, unknown>) }
            delete copy[key]
            return copy
          }),
        ]
      : []),
  )
}

interface FuzzRequest {
  route: Route
  id: string
  query: string
  body: { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'raw'; text: string }
  contentType: string | undefined
  encoding: 'none' | 'gzip' | 'fake-gzip' | 'deflate' | 'br' | 'identity' | 'x-unknown'
  idempotencyKey: string | undefined
  auth: 'valid' | 'none' | 'readOnly' | 'free' | 'other' | 'garbage' | 'basic' | 'empty' | 'long'
}

describe.each(dialects())('fuzzing every route on %s', (dialect: Dialect) => {
  let server: TestServer
  let keys: Record<FuzzRequest['auth'], string | undefined>
  let ids: { codes: string[]; showcases: string[]; apiKeys: string[] }
  const failures: string[] = []
  /** Failures by what went wrong and the request's Content-Encoding, for the summary line. */
  const kinds = new Map<string, number>()
  let ran = 0

  beforeAll(async () => {
    server = await startServer({
      dialect,
      // Webhooks to 127.0.0.1 are accepted (and their deliveries refused by the closed port 9).
      env: { RATE_LIMIT_PER_MINUTE: '100000000', WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_RETRY_DELAYS: '' },
    })
    const client = api(server, server.apiKey)
    const code = await createCode(client, dynamicCode({ name: 'fuzz target' }))
    const page = await client.post('/showcases', { qrCodeId: code.id, title: 'Fuzz target' })
    const spare = await client.post('/api-keys', { name: 'spare', scope: 'read_write' })
    const readOnly = await server.createAccount({ scope: 'read' })
    const free = await server.createAccount({ plan: 'free' })
    const other = await server.createAccount()
    const otherCode = await createCode(api(server, other.apiKey), textCode())
    keys = {
      valid: server.apiKey,
      none: undefined,
      readOnly: `Bearer ${readOnly.apiKey}`,
      free: `Bearer ${free.apiKey}`,
      other: `Bearer ${other.apiKey}`,
      garbage: `Bearer qrk_${'x'.repeat(40)}`,
      basic: 'Basic dXNlcjpwYXNz',
      empty: 'Bearer ',
      long: `Bearer ${'q'.repeat(10_000)}`,
    }
    // The fuzzer's own key is never a path id: revoking it would end the run.
    ids = { codes: [code.id, otherCode.id], showcases: [page.body.data.id], apiKeys: [spare.body.data.id] }
  })

  afterAll(async () => {
    const byKind = [...kinds].map(([kind, n]) => `${n}× ${kind}`).join('; ')
    console.info(
      `fuzz ${dialect}: ${ran} requests ran, ${failures.length} failed (seed ${SEED})${byKind ? `: ${byKind}` : ''}`,
    )
    await server?.close()
  })

  /** Codes, showcases and keys of every account, as one comparable value (last use aside). */
  const fingerprint = async () => {
    const db = server.ctx.db
    const [codes, pages, apiKeys] = await Promise.all([
      db
        .selectFrom('qr_codes')
        .select((eb) => [
          eb.fn.countAll<number>().as('n'),
          eb.fn.max('updated_at').as('updated'),
          eb.fn.count<number>('deleted_at').as('deleted'),
        ])
        .executeTakeFirstOrThrow(),
      db
        .selectFrom('showcases')
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('updated_at').as('updated')])
        .executeTakeFirstOrThrow(),
      db
        .selectFrom('api_keys')
        .select((eb) => [
          eb.fn.countAll<number>().as('n'),
          eb.fn.count<number>('revoked_at').as('revoked'),
          eb.fn.count<number>('expires_at').as('expiring'),
        ])
        .executeTakeFirstOrThrow(),
    ])
    return JSON.stringify({ codes, pages, apiKeys })
  }

  const arbitrary = () => {
    const bodies = validBodies(ids.codes[0] as string)
    return fc.constantFrom(...ROUTES).chain((route) =>
      fc.record<FuzzRequest>({
        route: fc.constant(route),
        id: fc.oneof(
          fc.constantFrom(
            ...(route.name.startsWith('showcases')
              ? ids.showcases
              : route.name.startsWith('apiKeys')
                ? ids.apiKeys
                : ids.codes),
          ),
          fc.uuid(),
          fc.constantFrom(...ADVERSARIAL_STRINGS.filter((v) => v !== '\ud800')).map(encodeURIComponent),
          fc.constantFrom('%E0%A4%A', '..', '%2e%2e%2f', 'a%2Fb', '%zz'),
        ),
        query: fc.oneof(
          fc.constant(''),
          fc.constantFrom(
            'limit=5',
            'offset=-1',
            'limit=abc',
            'dryRun=true',
            'period=7d',
            'period=x',
            'size=99999',
            'download=1',
            'type=dynamic',
            'limit=1&limit=2',
            'q[a]=1',
            '__proto__[x]=1',
            'search=%00',
          ),
          fc
            .dictionary(
              fc.constantFrom('limit', 'offset', 'dryRun', 'period', 'size', 'type', 'q', 'extra'),
              fc.string({ maxLength: 8 }),
              { maxKeys: 3 },
            )
            .map((q) => new URLSearchParams(q).toString()),
        ),
        body: fc.oneof(
          fc.constant({ kind: 'none' as const }),
          (bodies[route.name] ? fc.constantFrom(...bodies[route.name]!).chain(mutated) : jsonValue).map(
            (value) => ({ kind: 'json' as const, value }),
          ),
          fc
            .constantFrom(
              '{',
              '{"a":',
              'null',
              '[]',
              '"x"',
              '{"name":"a","name":"b"}',
              'x'.repeat(2000),
              `{"codes":[${'{},'.repeat(200)}{}]}`,
              `${'['.repeat(100)}${']'.repeat(100)}`,
            )
            .map((text) => ({ kind: 'raw' as const, text })),
        ),
        contentType: fc.constantFrom(
          undefined,
          'application/json',
          'application/json',
          'application/json; charset=utf-8',
          'application/json; charset=latin1',
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/merge-patch+json',
          '*/*',
        ),
        encoding: fc.constantFrom(
          'none',
          'none',
          'none',
          'gzip',
          'fake-gzip',
          'deflate',
          'br',
          'identity',
          'x-unknown',
        ),
        idempotencyKey: fc.oneof(
          fc.constant(undefined),
          fc.uuid(),
          fc.constantFrom('', ' ', 'k'.repeat(300), 'kl\u00fcch', 'a\tb'),
        ),
        auth: fc.constantFrom(
          'valid',
          'valid',
          'valid',
          'valid',
          'none',
          'readOnly',
          'free',
          'other',
          'garbage',
          'basic',
          'empty',
          'long',
        ),
      }),
    )
  }

  const send = async (r: FuzzRequest) => {
    const method = r.route.route.method
    const path = r.route.route.path.replace(':id', r.id)
    const url = `${server.baseUrl}${path.startsWith('/api/v1') ? '' : '/api/v1'}${path}${r.query ? `?${r.query}` : ''}`
    const headers: Record<string, string> = {}
    if (r.auth === 'valid') headers.authorization = `Bearer ${server.apiKey}`
    else if (keys[r.auth]) headers.authorization = keys[r.auth] as string
    if (r.contentType) headers['content-type'] = r.contentType
    if (r.idempotencyKey !== undefined) headers['idempotency-key'] = r.idempotencyKey
    let body: Uint8Array | string | undefined
    if (method !== 'GET' && r.body.kind !== 'none') {
      const text = r.body.kind === 'json' ? (JSON.stringify(r.body.value) ?? 'null') : r.body.text
      body = text
      if (r.encoding === 'gzip') body = gzipSync(text)
      if (r.encoding === 'fake-gzip') body = `not gzip ${text}`
      if (r.encoding !== 'none')
        headers['content-encoding'] = r.encoding === 'fake-gzip' ? 'gzip' : r.encoding
    }
    const res = await fetch(url, { method, headers, body, redirect: 'manual' })
    const text = await res.text()
    return { status: res.status, headers: res.headers, text }
  }

  const describeRequest = (r: FuzzRequest) =>
    `${r.route.route.method} ${r.route.route.path} id=${r.id.slice(0, 40)} query=${r.query.slice(0, 60)} ` +
    `auth=${r.auth} ct=${r.contentType} ce=${r.encoding} body=${JSON.stringify(r.body).slice(0, 120)}`

  it(`answers ${RUNS} generated requests with no 5xx, the error shape, and no change on rejection`, async () => {
    const requests = fc.sample(arbitrary(), { numRuns: RUNS, seed: SEED })
    for (const r of requests) {
      const before = await fingerprint()
      const res = await send(r)
      ran++
      const problems: string[] = []
      if (res.status >= 500) problems.push(`answered ${res.status}`)
      if (!res.headers.get('x-request-id')) problems.push('no X-Request-Id')
      if (res.status >= 400) {
        let parsed: { error?: unknown; details?: { message?: unknown } } | undefined
        try {
          parsed = JSON.parse(res.text)
        } catch {
          problems.push('error body is not JSON')
        }
        if (parsed && (typeof parsed.error !== 'string' || typeof parsed.details?.message !== 'string'))
          problems.push('error body is not { error, details: { message } }')
        if ((await fingerprint()) !== before) problems.push('a rejected request changed data')
      }
      for (const problem of problems) {
        const kind = `${problem} (Content-Encoding ${r.body.kind === 'none' ? 'none' : r.encoding})`
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
      }
      if (problems.length > 0)
        failures.push(
          `${problems.join(', ')}: ${describeRequest(r)} -> ${res.status} ${res.text.slice(0, 200)}`,
        )
    }
    expect(failures.slice(0, 20)).toEqual([])
  }, 600_000)
})
