/**
 * The contract drives a typed client and a typed server. Most of what this file proves happens
 * at compile time (`npx tsc -p contract/tsconfig.json`): the server stub must implement every
 * route with its declared statuses and bodies, the client calls must match every route's
 * params, query, headers and body, and the `@ts-expect-error` lines must stay errors.
 * At run time the client talks to the stub through a custom fetcher (no network), so the
 * paths and methods the client produces, and the stub's answers, are checked against the
 * contract's own zod schemas.
 */
import {
  type ApiFetcherArgs,
  type AppRoute,
  type AppRouter,
  initClient,
  isAppRoute,
  isAppRouteMutation,
  isZodType,
  type ServerInferRequest,
  type ServerInferResponses,
} from '@ts-rest/core'
import { beforeEach, describe, expect, it } from 'vitest'
import {
  type Analytics,
  type ApiKeyWithSecret,
  type Asset,
  type Contract,
  type CreateQrCodeInput,
  contract,
  type QrCode,
  type Showcase,
  toIssues,
  type Webhook,
  type WebhookDelivery,
} from '../src/index.js'

const BASE_URL = 'http://qrctl.test'
const CODE_ID = '3f2b8c1e-9d4a-4b7e-8c2f-1a6d5e4b3c2a'
const SHOWCASE_ID = '7c9e6679-7425-40de-944b-e07fc1f90ae7'
const KEY_ID = '0b6f4c1d-2e3a-4f5b-8c7d-9e0f1a2b3c4d'
const NOW = '2026-11-21T09:30:00.000Z'
const ID = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d'

/** A server for a router: one handler per route, taking the parsed request, answering a declared status. */
type ServerStub<T extends AppRouter> = {
  [K in keyof T]: T[K] extends AppRoute
    ? (request: ServerInferRequest<T[K]>) => Promise<ServerInferResponses<T[K]>>
    : T[K] extends AppRouter
      ? ServerStub<T[K]>
      : never
}

const qrCode = (fields: Partial<QrCode> = {}): QrCode => ({
  id: CODE_ID,
  name: 'Spring menu',
  type: 'dynamic',
  contentType: 'url',
  content: 'https://example.com/menu',
  targetUrl: 'https://example.com/menu',
  shortCode: 'aZ3kP9q',
  shortUrl: `${BASE_URL}/r/aZ3kP9q`,
  style: null,
  isActive: true,
  totalScans: 0,
  externalId: null,
  tags: [],
  rules: null,
  expiresAt: null,
  expiredUrl: null,
  maxScans: null,
  afterLimitUrl: null,
  hasPassword: false,
  utm: null,
  forwardQuery: false,
  createdAt: NOW,
  updatedAt: NOW,
  assets: {
    png: `${BASE_URL}/api/v1/qr-codes/${CODE_ID}/image.png`,
    svg: `${BASE_URL}/api/v1/qr-codes/${CODE_ID}/image.svg`,
    pdf: `${BASE_URL}/api/v1/qr-codes/${CODE_ID}/image.pdf`,
  },
  ...fields,
})

const showcase = (fields: Partial<Showcase> = {}): Showcase => ({
  id: SHOWCASE_ID,
  qrCodeId: CODE_ID,
  title: 'Café Aurora',
  slug: 'cafe-aurora',
  description: null,
  template: 'minimal',
  customColors: null,
  customBackgroundUrl: null,
  logoUrl: null,
  socialLinks: null,
  ctaButtons: null,
  showBranding: true,
  isActive: true,
  viewCount: 0,
  downloadCount: 0,
  createdAt: NOW,
  url: `${BASE_URL}/s/cafe-aurora`,
  ...fields,
})

const apiKey = (fields: Partial<ApiKeyWithSecret> = {}): ApiKeyWithSecret => ({
  id: KEY_ID,
  name: 'ci',
  environment: null,
  scope: 'read_write',
  prefix: 'qrk_A1b2',
  lastFour: 'E5f6',
  createdAt: NOW,
  lastUsedAt: null,
  expiresAt: null,
  secret: `qrk_${'A1b2C3d4E5'.repeat(3)}A1b2C3E5f6`,
  ...fields,
})

const analytics: Analytics = {
  totalEvents: 2,
  uniqueVisitors: 1,
  eventsByDay: [{ date: '2026-11-21', count: 2 }],
  topDevices: [{ name: 'mobile', count: 2 }],
  topBrowsers: [{ name: 'Chrome', count: 2 }],
  topOs: [{ name: 'Android', count: 2 }],
  topCountries: [{ name: 'DE', count: 2 }],
  topCities: [{ name: 'Berlin', count: 2 }],
  topReferrers: [{ name: 'direct', count: 2 }],
}

const WEBHOOK_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`

const webhook = (fields: Partial<Webhook> = {}): Webhook => ({
  id: KEY_ID,
  url: 'https://hooks.example.com/qrctl',
  description: null,
  events: ['scan.created'],
  qrCodeIds: null,
  isActive: true,
  disabledReason: null,
  createdAt: NOW,
  updatedAt: NOW,
  ...fields,
})

const delivery = (fields: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id: KEY_ID,
  eventId: 'evt_1',
  type: 'webhook.test',
  status: 'pending',
  attempts: 0,
  lastAttemptAt: null,
  nextAttemptAt: NOW,
  responseStatus: null,
  responseBody: null,
  durationMs: null,
  ...fields,
})

const asset = (fields: Partial<Asset> = {}): Asset => ({
  id: ID,
  name: null,
  contentType: 'image/png',
  width: 200,
  height: 100,
  bytes: 1234,
  createdAt: NOW,
  url: `https://qrctl.example/api/v1/assets/${ID}/content`,
  ...fields,
})

const image = (type: string) => new Blob(['image bytes'], { type })

/**
 * The server, stubbed. The annotation is the point: a missing route, an undeclared status or
 * a body of the wrong shape is a compile error here.
 */
const server: ServerStub<Contract> = {
  qrCodes: {
    list: async ({ query }) => ({
      status: 200,
      body: {
        data: [qrCode({ type: query.type ?? 'dynamic' })],
        total: 1,
        limit: query.limit,
        offset: query.offset,
      },
    }),
    create: async ({ body }) => ({
      status: 201,
      body: { data: qrCode({ name: body.name, contentType: body.contentType, content: body.content }) },
    }),
    get: async ({ params }) => ({ status: 200, body: { data: qrCode({ id: params.id }) } }),
    update: async ({ params, body }) => ({
      status: 200,
      body: { data: qrCode({ id: params.id, targetUrl: body.targetUrl ?? null }) },
    }),
    delete: async () => ({ status: 200, body: { success: true } }),
    restore: async ({ params }) => ({ status: 200, body: { data: qrCode({ id: params.id }) } }),
    batch: async ({ query, body }) => ({
      status: 201,
      body: {
        data: query.dryRun
          ? { created: 0, errors: [], items: [] }
          : {
              created: body.codes.length,
              errors: [],
              items: body.codes.map((item) => qrCode({ name: item.name })),
            },
      },
    }),
    bulkUpdate: async ({ body }) => ({
      status: 200,
      body: { data: { updated: new Set(body.ids).size, errors: [] } },
    }),
    bulkDelete: async ({ body }) => ({
      status: 200,
      body: { data: { deleted: body.ids.length, errors: [] } },
    }),
    bulkRestore: async ({ body }) => ({
      status: 200,
      body: { data: { restored: 0, errors: body.ids.map((_, i) => `ids[${i}]: not deleted`) } },
    }),
    analytics: async () => ({ status: 200, body: { data: analytics } }),
    imagePng: async () => ({ status: 200, body: image('image/png') }),
    imageSvg: async () => ({ status: 304, body: undefined }),
    imagePdf: async () => ({ status: 200, body: image('application/pdf') }),
    previewPng: async () => ({ status: 200, body: image('image/png') }),
    previewSvg: async () => ({ status: 200, body: image('image/svg+xml') }),
  },
  showcases: {
    list: async ({ query }) => ({
      status: 200,
      body: { data: [showcase()], total: 1, limit: query.limit, offset: query.offset },
    }),
    create: async ({ body }) => ({
      status: 201,
      body: {
        data: showcase({ title: body.title, template: body.template, showBranding: body.showBranding }),
      },
    }),
    get: async ({ params }) => ({ status: 200, body: { data: showcase({ id: params.id }) } }),
    update: async ({ body }) => ({
      status: 200,
      body: {
        data: showcase({ socialLinks: body.socialLinks ?? null, ctaButtons: body.ctaButtons ?? null }),
      },
    }),
    delete: async () => ({ status: 200, body: { success: true } }),
  },
  apiKeys: {
    list: async () => {
      const { secret: _secret, ...listed } = apiKey()
      return { status: 200, body: { data: [listed] } }
    },
    create: async ({ body }) => ({
      status: 201,
      body: { data: apiKey({ name: body.name, scope: body.scope, environment: body.environment ?? null }) },
    }),
    revoke: async () => ({ status: 200, body: { success: true } }),
    rotate: async ({ params, body }) => ({
      status: 201,
      body: {
        data: apiKey({ id: params.id, expiresAt: (body?.gracePeriodSeconds ?? 0) > 0 ? NOW : null }),
      },
    }),
  },
  webhooks: {
    list: async ({ query }) => ({
      status: 200,
      body: { data: [webhook()], total: 1, limit: query.limit, offset: query.offset },
    }),
    create: async ({ body }) => ({
      status: 201,
      body: { data: { ...webhook({ url: body.url, events: body.events }), secret: WEBHOOK_SECRET } },
    }),
    get: async ({ params }) => ({ status: 200, body: { data: webhook({ id: params.id }) } }),
    update: async ({ body }) => ({
      status: 200,
      body: { data: webhook({ isActive: body.isActive ?? true }) },
    }),
    delete: async () => ({ status: 200, body: { success: true } }),
    test: async () => ({ status: 202, body: { data: delivery() } }),
    deliveries: async ({ query }) => ({
      status: 200,
      body: { data: [delivery()], total: 1, limit: query.limit, offset: query.offset },
    }),
    redeliver: async ({ params }) => ({ status: 202, body: { data: delivery({ id: params.deliveryId }) } }),
    rotateSecret: async () => ({ status: 201, body: { data: { secret: WEBHOOK_SECRET } } }),
  },
  tags: {
    list: async () => ({ status: 200, body: { data: [{ name: 'spring', count: 2 }] } }),
  },
  assets: {
    list: async ({ query }) => ({
      status: 200,
      body: { data: [asset()], total: 1, limit: query.limit, offset: query.offset },
    }),
    create: async ({ body }) => ({ status: 201, body: { data: asset({ name: body.name ?? null }) } }),
    get: async ({ params }) => ({ status: 200, body: { data: asset({ id: params.id }) } }),
    content: async () => ({ status: 200, body: image('image/png') }),
    delete: async () => ({ status: 200, body: { success: true } }),
  },
  analytics: {
    account: async ({ query }) => ({
      status: 200,
      body: { data: { ...analytics, timezone: query.timezone ?? 'UTC', topCodes: [] } },
    }),
    export: async () => ({ status: 200, body: 'scannedAt\r\n' }),
    scans: async () => ({
      status: 200,
      body: {
        data: {
          from: '2026-11-21',
          to: '2026-11-21',
          timezone: 'UTC',
          totalEvents: 2,
          byDate: [{ date: '2026-11-21', count: 2 }],
          byCountry: [],
          byDevice: [],
          byReferrer: [],
        },
      },
    }),
  },
}

type Handler = (request: unknown) => Promise<{ status: number; body: unknown }>
type RouteEntry = { key: string; route: AppRoute; handler: Handler }

/** Every route of the contract with its stub handler, keyed `group.name`. */
function flatten(router: AppRouter, stub: unknown, prefix = ''): RouteEntry[] {
  return Object.entries(router).flatMap(([name, value]) => {
    const key = `${prefix}${name}`
    const handler = (stub as Record<string, unknown>)[name]
    if (isAppRoute(value)) {
      if (typeof handler !== 'function') throw new Error(`the server stub has no handler for ${key}`)
      return [{ key, route: value, handler: handler as Handler }]
    }
    return flatten(value, handler, `${key}.`)
  })
}
const routes = flatten(contract, server)

/** Path parameters of a concrete path, matched against the route's `:param` pattern. */
function matchPath(pattern: string, pathname: string): Record<string, string> | undefined {
  const names: string[] = []
  const source = pattern.replace(/[.]/g, '\\.').replace(/:(\w+)/g, (_, name: string) => {
    names.push(name)
    return '([^/]+)'
  })
  const match = new RegExp(`^${source}$`).exec(pathname)
  if (!match) return undefined
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1] ?? '')]))
}

/** Parses one part of a request as a server would, or answers the contract's 400. */
function parsePart(
  schema: unknown,
  value: unknown,
): { ok: true; value: unknown } | { ok: false; body: unknown } {
  if (!isZodType(schema)) return { ok: true, value }
  const result = schema.safeParse(value)
  if (result.success) return { ok: true, value: result.data }
  return {
    ok: false,
    body: {
      error: 'validation_error',
      details: { message: 'Invalid request', issues: toIssues(result.error) },
    },
  }
}

type Call = { key: string; method: string; url: string; headers: Record<string, string>; body: unknown }
const calls: Call[] = []

/** The client's transport: records the request, routes it to the stub, checks the answer against the contract. */
async function api(args: ApiFetcherArgs) {
  const entry = routes.find((candidate) => candidate.route === args.route)
  if (!entry)
    throw new Error(`the client called a route the contract does not have: ${args.method} ${args.path}`)
  const url = new URL(args.path)
  const body = typeof args.body === 'string' ? JSON.parse(args.body) : undefined
  calls.push({
    key: entry.key,
    method: args.method,
    url: `${url.pathname}${url.search}`,
    headers: args.headers,
    body,
  })

  const params = matchPath(entry.route.path, url.pathname)
  if (!params) throw new Error(`${url.pathname} does not match ${entry.route.path}`)
  const parts = {
    params: parsePart(entry.route.pathParams, params),
    query: parsePart(entry.route.query, Object.fromEntries(url.searchParams)),
    body: parsePart(isAppRouteMutation(entry.route) ? entry.route.body : undefined, body),
  }
  for (const part of Object.values(parts)) {
    if (!part.ok) return { status: 400, body: part.body, headers: new Headers() }
  }
  const request = Object.fromEntries(
    Object.entries(parts).map(([name, part]) => [name, part.ok ? part.value : undefined]),
  )
  const response = await entry.handler({ ...request, headers: args.headers })
  const schema = entry.route.responses[response.status]
  if (schema === undefined)
    throw new Error(`${entry.key} answered ${response.status}, which it does not declare`)
  return {
    status: response.status,
    body: isZodType(schema) ? schema.parse(response.body) : response.body,
    headers: new Headers(),
  }
}

const client = initClient(contract, { baseUrl: BASE_URL, baseHeaders: {}, api, throwOnUnknownStatus: true })
type Client = typeof client

const lastCall = (): Call => {
  const call = calls.at(-1)
  if (!call) throw new Error('the client made no call')
  return call
}

const newCode: CreateQrCodeInput = { name: 'Table 4', contentType: 'url', content: 'https://example.com/t/4' }

describe('the typed client', () => {
  beforeEach(() => {
    calls.length = 0
  })

  it('lists QR codes with GET /api/v1/qr-codes and the query in the URL', async () => {
    const response = await client.qrCodes.list({ query: { limit: 10, offset: 20, type: 'static' } })
    expect(lastCall()).toMatchObject({
      method: 'GET',
      url: '/api/v1/qr-codes?limit=10&offset=20&type=static',
    })
    expect(response.status).toBe(200)
    if (response.status !== 200) return
    expect(response.body).toMatchObject({ total: 1, limit: 10, offset: 20 })
    expect(response.body.data[0]?.type).toBe('static')
  })

  it('lists with the defaults when called without arguments', async () => {
    const response = await client.qrCodes.list()
    expect(lastCall().url).toBe('/api/v1/qr-codes')
    expect(response.body).toMatchObject({ limit: 50, offset: 0 })
  })

  it('creates with POST /api/v1/qr-codes, a JSON body and the idempotency key', async () => {
    const response = await client.qrCodes.create({
      body: newCode,
      headers: { 'idempotency-key': 'order-42' },
    })
    expect(lastCall()).toMatchObject({ method: 'POST', url: '/api/v1/qr-codes', body: newCode })
    expect(lastCall().headers).toMatchObject({
      'content-type': 'application/json',
      'idempotency-key': 'order-42',
    })
    expect(response.status).toBe(201)
    if (response.status === 201) expect(response.body.data.name).toBe('Table 4')
  })

  it('gets with GET /api/v1/qr-codes/<id>', async () => {
    const response = await client.qrCodes.get({ params: { id: CODE_ID } })
    expect(lastCall()).toMatchObject({ method: 'GET', url: `/api/v1/qr-codes/${CODE_ID}` })
    if (response.status !== 200) throw new Error(`status ${response.status}`)
    expect(response.body.data.id).toBe(CODE_ID)
  })

  it('updates with PATCH /api/v1/qr-codes/<id>', async () => {
    const response = await client.qrCodes.update({
      params: { id: CODE_ID },
      body: { targetUrl: 'https://example.com/menu/autumn', isActive: false },
    })
    expect(lastCall()).toMatchObject({
      method: 'PATCH',
      url: `/api/v1/qr-codes/${CODE_ID}`,
      body: { targetUrl: 'https://example.com/menu/autumn', isActive: false },
    })
    if (response.status !== 200) throw new Error(`status ${response.status}`)
    expect(response.body.data.targetUrl).toBe('https://example.com/menu/autumn')
  })

  it('deletes with DELETE /api/v1/qr-codes/<id> and no body', async () => {
    const response = await client.qrCodes.delete({ params: { id: CODE_ID } })
    expect(lastCall()).toMatchObject({
      method: 'DELETE',
      url: `/api/v1/qr-codes/${CODE_ID}`,
      body: undefined,
    })
    expect(response).toMatchObject({ status: 200, body: { success: true } })
  })

  it('restores with POST /api/v1/qr-codes/<id>/restore', async () => {
    const response = await client.qrCodes.restore({ params: { id: CODE_ID } })
    expect(lastCall()).toMatchObject({ method: 'POST', url: `/api/v1/qr-codes/${CODE_ID}/restore` })
    expect(response.status).toBe(200)
  })

  it('batches with POST /api/v1/qr-codes/batch, dryRun in the query', async () => {
    const codes = [newCode, { ...newCode, name: 'Table 5' }]
    const created = await client.qrCodes.batch({ body: { codes } })
    expect(lastCall()).toMatchObject({ method: 'POST', url: '/api/v1/qr-codes/batch', body: { codes } })
    expect(created).toMatchObject({ status: 201, body: { data: { created: 2 } } })

    const dryRun = await client.qrCodes.batch({ query: { dryRun: 'true' }, body: { codes } })
    expect(lastCall().url).toBe('/api/v1/qr-codes/batch?dryRun=true')
    expect(dryRun).toMatchObject({ status: 201, body: { data: { created: 0, items: [] } } })
  })

  it('reads analytics with GET /api/v1/qr-codes/<id>/analytics?period=…', async () => {
    const response = await client.qrCodes.analytics({ params: { id: CODE_ID }, query: { period: '7d' } })
    expect(lastCall()).toMatchObject({
      method: 'GET',
      url: `/api/v1/qr-codes/${CODE_ID}/analytics?period=7d`,
    })
    if (response.status !== 200) throw new Error(`status ${response.status}`)
    expect(response.body.data.totalEvents).toBe(2)
  })

  it('fetches images from /image.png, /image.svg and /image.pdf', async () => {
    const png = await client.qrCodes.imagePng({
      params: { id: CODE_ID },
      query: { size: 256, download: '1' },
    })
    expect(lastCall()).toMatchObject({
      method: 'GET',
      url: `/api/v1/qr-codes/${CODE_ID}/image.png?size=256&download=1`,
    })
    expect(png.status).toBe(200)
    if (png.status === 200) expect(png.body).toBeInstanceOf(Blob)

    const svg = await client.qrCodes.imageSvg({ params: { id: CODE_ID } })
    expect(lastCall().url).toBe(`/api/v1/qr-codes/${CODE_ID}/image.svg`)
    expect(svg.status).toBe(304)

    await client.qrCodes.imagePdf({ params: { id: CODE_ID } })
    expect(lastCall().url).toBe(`/api/v1/qr-codes/${CODE_ID}/image.pdf`)
  })

  it('posts unsaved designs to /preview.png and /preview.svg', async () => {
    const body = {
      contentType: 'url',
      content: 'https://example.com',
      style: { moduleShape: 'dot' },
    } as const
    const png = await client.qrCodes.previewPng({ body })
    expect(lastCall()).toMatchObject({ method: 'POST', url: '/api/v1/qr-codes/preview.png' })
    expect(png.status).toBe(200)
    await client.qrCodes.previewSvg({ body })
    expect(lastCall()).toMatchObject({ method: 'POST', url: '/api/v1/qr-codes/preview.svg' })
  })

  it('manages showcases under /api/v1/showcases', async () => {
    await client.showcases.list({ query: { qrCodeId: CODE_ID } })
    expect(lastCall()).toMatchObject({ method: 'GET', url: `/api/v1/showcases?qrCodeId=${CODE_ID}` })

    const created = await client.showcases.create({ body: { qrCodeId: CODE_ID, title: 'Café Aurora' } })
    expect(lastCall()).toMatchObject({ method: 'POST', url: '/api/v1/showcases' })
    expect(created).toMatchObject({
      status: 201,
      body: { data: { template: 'minimal', showBranding: true } },
    })

    await client.showcases.get({ params: { id: SHOWCASE_ID } })
    expect(lastCall()).toMatchObject({ method: 'GET', url: `/api/v1/showcases/${SHOWCASE_ID}` })

    const links = [{ platform: 'instagram', url: 'https://instagram.com/cafe' }]
    const updated = await client.showcases.update({
      params: { id: SHOWCASE_ID },
      body: { socialLinks: links },
    })
    expect(lastCall()).toMatchObject({ method: 'PATCH', url: `/api/v1/showcases/${SHOWCASE_ID}` })
    expect(updated).toMatchObject({ status: 200, body: { data: { socialLinks: links } } })

    await client.showcases.delete({ params: { id: SHOWCASE_ID } })
    expect(lastCall()).toMatchObject({ method: 'DELETE', url: `/api/v1/showcases/${SHOWCASE_ID}` })
  })

  it('manages API keys under /api/v1/api-keys', async () => {
    const listed = await client.apiKeys.list()
    expect(lastCall()).toMatchObject({ method: 'GET', url: '/api/v1/api-keys' })
    if (listed.status !== 200) throw new Error(`status ${listed.status}`)
    expect(listed.body.data[0]).not.toHaveProperty('secret')

    const created = await client.apiKeys.create({ body: { name: 'ci', scope: 'read' } })
    expect(lastCall()).toMatchObject({
      method: 'POST',
      url: '/api/v1/api-keys',
      body: { name: 'ci', scope: 'read' },
    })
    expect(created).toMatchObject({
      status: 201,
      body: { data: { scope: 'read', secret: expect.any(String) } },
    })

    await client.apiKeys.revoke({ params: { id: KEY_ID } })
    expect(lastCall()).toMatchObject({ method: 'DELETE', url: `/api/v1/api-keys/${KEY_ID}` })

    const rotated = await client.apiKeys.rotate({
      params: { id: KEY_ID },
      body: { gracePeriodSeconds: 3600 },
    })
    expect(lastCall()).toMatchObject({ method: 'POST', url: `/api/v1/api-keys/${KEY_ID}/rotate` })
    expect(rotated).toMatchObject({ status: 201, body: { data: { expiresAt: NOW } } })
  })

  it('gets the contract 400 when the request breaks the schema at run time', async () => {
    const response = await client.qrCodes.get({ params: { id: 'not-a-uuid' } })
    expect(response.status).toBe(400)
    expect(response.body).toEqual({
      error: 'validation_error',
      details: { message: 'Invalid request', issues: [{ path: 'id', message: 'Must be a UUID' }] },
    })
  })
})

describe('the server stub', () => {
  it('implements every route of the contract', () => {
    expect(routes.map((entry) => entry.key).sort()).toEqual(
      [
        'apiKeys.create',
        'apiKeys.list',
        'apiKeys.revoke',
        'apiKeys.rotate',
        'assets.content',
        'assets.create',
        'assets.delete',
        'assets.get',
        'assets.list',
        'analytics.account',
        'analytics.export',
        'analytics.scans',
        'qrCodes.analytics',
        'qrCodes.batch',
        'qrCodes.bulkDelete',
        'qrCodes.bulkRestore',
        'qrCodes.bulkUpdate',
        'qrCodes.create',
        'qrCodes.delete',
        'qrCodes.get',
        'qrCodes.imagePdf',
        'qrCodes.imagePng',
        'qrCodes.imageSvg',
        'qrCodes.list',
        'qrCodes.previewPng',
        'qrCodes.previewSvg',
        'qrCodes.restore',
        'qrCodes.update',
        'showcases.create',
        'showcases.delete',
        'showcases.get',
        'showcases.list',
        'showcases.update',
        'webhooks.create',
        'webhooks.delete',
        'webhooks.deliveries',
        'webhooks.get',
        'webhooks.list',
        'webhooks.redeliver',
        'webhooks.rotateSecret',
        'webhooks.test',
        'webhooks.update',
        'tags.list',
      ].sort(),
    )
  })

  it('is reached through the client for every route by the tests above', async () => {
    calls.length = 0
    await client.qrCodes.list()
    await client.qrCodes.create({ body: newCode })
    await client.qrCodes.get({ params: { id: CODE_ID } })
    await client.qrCodes.update({ params: { id: CODE_ID }, body: { name: 'Renamed' } })
    await client.qrCodes.delete({ params: { id: CODE_ID } })
    await client.qrCodes.restore({ params: { id: CODE_ID } })
    await client.qrCodes.batch({ body: { codes: [newCode] } })
    await client.qrCodes.analytics({ params: { id: CODE_ID } })
    await client.qrCodes.imagePng({ params: { id: CODE_ID } })
    await client.qrCodes.imageSvg({ params: { id: CODE_ID } })
    await client.qrCodes.imagePdf({ params: { id: CODE_ID } })
    await client.qrCodes.previewPng({ body: { contentType: 'text', content: 'hi' } })
    await client.qrCodes.previewSvg({ body: { contentType: 'text', content: 'hi' } })
    await client.analytics.account({ query: { timezone: 'Asia/Kathmandu' } })
    await client.analytics.export({ query: { from: '2026-11-01', to: '2026-11-21' } })
    await client.analytics.scans({ params: { id: CODE_ID } })
    await client.showcases.list()
    await client.showcases.create({ body: { qrCodeId: CODE_ID, title: 'Page' } })
    await client.showcases.get({ params: { id: SHOWCASE_ID } })
    await client.showcases.update({ params: { id: SHOWCASE_ID }, body: { isActive: false } })
    await client.showcases.delete({ params: { id: SHOWCASE_ID } })
    await client.apiKeys.list()
    await client.apiKeys.create({ body: { name: 'ci' } })
    await client.apiKeys.revoke({ params: { id: KEY_ID } })
    await client.apiKeys.rotate({ params: { id: KEY_ID }, body: {} })
    await client.webhooks.list()
    await client.webhooks.create({ body: { url: 'https://hooks.example.com/q', events: ['*'] } })
    await client.webhooks.get({ params: { id: KEY_ID } })
    await client.webhooks.update({ params: { id: KEY_ID }, body: { isActive: false } })
    await client.webhooks.delete({ params: { id: KEY_ID } })
    await client.webhooks.test({ params: { id: KEY_ID } })
    await client.webhooks.deliveries({ params: { id: KEY_ID } })
    await client.webhooks.redeliver({ params: { id: KEY_ID, deliveryId: SHOWCASE_ID } })
    await client.webhooks.rotateSecret({ params: { id: KEY_ID } })
    await client.qrCodes.bulkUpdate({ body: { ids: [CODE_ID], set: { isActive: false } } })
    await client.qrCodes.bulkDelete({ body: { ids: [CODE_ID] } })
    await client.qrCodes.bulkRestore({ body: { ids: [CODE_ID] } })
    await client.tags.list()
    await client.assets.list()
    await client.assets.create({ body: { contentType: 'image/png', data: 'iVBORw0KGgo=' } })
    await client.assets.get({ params: { id: ID } })
    await client.assets.content({ params: { id: ID } })
    await client.assets.delete({ params: { id: ID } })
    expect(new Set(calls.map((call) => call.key))).toEqual(new Set(routes.map((entry) => entry.key)))
  })
})

/**
 * Never run: each line under a `@ts-expect-error` must fail type checking. If one of them
 * starts compiling (the contract got looser), tsc reports the unused directive.
 */
export function mistypedCalls(typed: Client): void {
  // @ts-expect-error the contract field is targetUrl, not target_url
  void typed.qrCodes.create({ body: { ...newCode, target_url: 'https://example.com' } })
  // @ts-expect-error contentType is required
  void typed.qrCodes.create({ body: { name: 'x', content: 'https://example.com' } })
  // @ts-expect-error type is static or dynamic
  void typed.qrCodes.create({ body: { ...newCode, type: 'animated' } })
  // @ts-expect-error the path parameter is id
  void typed.qrCodes.get({ params: { qrCodeId: CODE_ID } })
  // @ts-expect-error get needs the id
  void typed.qrCodes.get()
  // @ts-expect-error type cannot be changed by an update
  void typed.qrCodes.update({ params: { id: CODE_ID }, body: { type: 'dynamic' } })
  // @ts-expect-error the list filter is static or dynamic
  void typed.qrCodes.list({ query: { type: 'animated' } })
  // @ts-expect-error limit is a number
  void typed.qrCodes.list({ query: { limit: [10] } })
  // @ts-expect-error analytics periods are 7d, 30d, 90d and all
  void typed.qrCodes.analytics({ params: { id: CODE_ID }, query: { period: '1y' } })
  // @ts-expect-error socialLinks are set with PATCH, not on create
  void typed.showcases.create({ body: { qrCodeId: CODE_ID, title: 'x', socialLinks: [] } })
  const button = { text: 'Go', url: 'https://example.com' }
  // @ts-expect-error a CTA button has a label, not a text
  void typed.showcases.update({ params: { id: SHOWCASE_ID }, body: { ctaButtons: [button] } })
  // @ts-expect-error key scopes are read, write and read_write
  void typed.apiKeys.create({ body: { name: 'ci', scope: 'admin' } })
  // @ts-expect-error the grace period is a number of seconds
  void typed.apiKeys.rotate({ params: { id: KEY_ID }, body: { gracePeriodSeconds: '1h' } })
  // @ts-expect-error there is no archive route
  void typed.qrCodes.archive({ params: { id: CODE_ID } })
  // @ts-expect-error there is no scans route (spec §4 rule 3: the analytics contract is the one)
  void typed.qrCodes.scans({ params: { id: CODE_ID } })
}

/** Never run either: a server that leaves out a route, or answers off-contract, does not compile. */
export function mistypedServers(): void {
  type QrCodesServer = ServerStub<Contract['qrCodes']>
  const { restore: _restore, ...withoutRestore } = server.qrCodes
  const answers200 = async () => ({ status: 200 as const, body: { data: qrCode() } })
  const answersDeleted = async () => ({ status: 200 as const, body: { deleted: true } })
  const answersText404 = async () => ({ status: 404 as const, body: 'not found' })
  const answers418 = async () => ({ status: 418 as const, body: { success: true } })

  // @ts-expect-error qrCodes.restore is missing
  const missingRoute: QrCodesServer = withoutRestore
  // @ts-expect-error create answers 201, not 200
  const wrongStatus: QrCodesServer['create'] = answers200
  // @ts-expect-error delete answers { success }, not { deleted }
  const wrongBody: QrCodesServer['delete'] = answersDeleted
  // @ts-expect-error a 404 body is the error shape, not a string
  const wrongError: QrCodesServer['get'] = answersText404
  // @ts-expect-error the contract has strict status codes: 418 is not one of delete's
  const undeclaredStatus: QrCodesServer['delete'] = answers418
  const readsWrongParam: QrCodesServer['get'] = async ({ params }) => {
    // @ts-expect-error the path parameter is id
    const id: string = params.qrCodeId
    return { status: 200, body: { data: qrCode({ id }) } }
  }
  void [missingRoute, wrongStatus, wrongBody, wrongError, undeclaredStatus, readsWrongParam]
}
