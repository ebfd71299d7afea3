import { generateSchema } from '@anatine/zod-openapi'
import { type AppRoute, isAppRoute, isAppRouteMutation, isAppRouteOtherResponse } from '@ts-rest/core'
import { generateOpenApi } from '@ts-rest/open-api'
import type {
  HeaderObject,
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
  SchemaObject,
} from 'openapi3-ts'
import { z } from 'zod'
import { ERROR_STATUS, ErrorBody, type ErrorCode, Issue } from './errors.js'
import { API_PREFIX, contract } from './router.js'
import { AccountAnalytics, Analytics, DayCount, NameCount, ScansReport } from './schemas/analytics.js'
import { ApiKey, ApiKeyWithSecret, CreateApiKey, RotateApiKey } from './schemas/api-keys.js'
import { BulkDeleteResult, BulkIds, BulkRestoreResult, BulkUpdate, BulkUpdateResult } from './schemas/bulk.js'
import {
  Assets,
  BatchCreate,
  BatchResult,
  CreateQrCode,
  QrCode,
  QrCodeList,
  UpdateQrCode,
} from './schemas/qr-codes.js'
import { RedirectRule } from './schemas/redirect-rules.js'
import {
  CreateShowcase,
  CtaButton,
  Showcase,
  ShowcaseList,
  SocialLink,
  UpdateShowcase,
} from './schemas/showcases.js'
import { TagCount, TagList } from './schemas/tags.js'
import {
  CreateWebhook,
  UpdateWebhook,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookList,
  WebhookWithSecret,
} from './schemas/webhooks.js'

const KEY = `qrk_${'A1b2C3d4E5'.repeat(4)}`
const CODE_ID = '3f2b8c1e-9d4a-4b7e-8c2f-1a6d5e4b3c2a'
const NOW = '2026-11-21T09:30:00.000Z'

const qrCodeExample = {
  id: CODE_ID,
  name: 'Spring menu',
  type: 'dynamic',
  contentType: 'url',
  content: 'https://example.com/menu',
  targetUrl: 'https://example.com/menu/spring',
  shortCode: 'aZ3kP9q',
  shortUrl: 'https://qrctl.example/r/aZ3kP9q',
  style: { foregroundColor: '#1A1A2E', backgroundColor: '#FFFFFF', errorCorrectionLevel: 'Q', margin: 4 },
  isActive: true,
  totalScans: 1284,
  externalId: 'menu-spring',
  tags: ['menu', 'spring'],
  rules: [
    {
      targetUrl: 'https://example.com/menu/dinner',
      conditions: [{ type: 'schedule', timezone: 'Europe/Berlin', from: '17:00', to: '23:00' }],
    },
  ],
  expiresAt: null,
  expiredUrl: null,
  maxScans: null,
  afterLimitUrl: null,
  hasPassword: false,
  utm: { source: 'table-card', medium: 'print' },
  forwardQuery: false,
  createdAt: NOW,
  updatedAt: NOW,
  assets: {
    png: `https://qrctl.example/api/v1/qr-codes/${CODE_ID}/image.png`,
    svg: `https://qrctl.example/api/v1/qr-codes/${CODE_ID}/image.svg`,
    pdf: `https://qrctl.example/api/v1/qr-codes/${CODE_ID}/image.pdf`,
  },
}

const showcaseExample = {
  id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  qrCodeId: CODE_ID,
  title: 'Café Aurora',
  slug: 'cafe-aurora',
  description: 'Fresh pastries every morning.',
  template: 'modern',
  customColors: { primary: '#0F766E' },
  customBackgroundUrl: null,
  logoUrl: 'https://example.com/logo.png',
  socialLinks: [{ platform: 'instagram', url: 'https://instagram.com/cafe.aurora' }],
  ctaButtons: [{ label: 'Order ahead', url: 'https://example.com/order' }],
  showBranding: true,
  isActive: true,
  viewCount: 312,
  downloadCount: 9,
  createdAt: NOW,
  url: 'https://qrctl.example/s/cafe-aurora',
}

/** Request and response examples of the main operations, by `METHOD path`. */
const EXAMPLES: Record<string, { request?: unknown; response?: [number, unknown] }> = {
  'GET /api/v1/qr-codes': { response: [200, { data: [qrCodeExample], total: 1, limit: 50, offset: 0 }] },
  'POST /api/v1/qr-codes': {
    request: {
      name: 'Spring menu',
      contentType: 'url',
      content: 'https://example.com/menu',
      type: 'dynamic',
    },
    response: [201, { data: qrCodeExample }],
  },
  'GET /api/v1/qr-codes/{id}': { response: [200, { data: qrCodeExample }] },
  'PATCH /api/v1/qr-codes/{id}': {
    request: { targetUrl: 'https://example.com/menu/spring' },
    response: [200, { data: qrCodeExample }],
  },
  'POST /api/v1/qr-codes/batch': {
    request: {
      codes: [
        { name: 'Table 1', contentType: 'url', content: 'https://example.com/t/1', type: 'dynamic' },
        { name: 'Guest wifi', contentType: 'wifi', content: '{"ssid":"Cafe","password":"croissant42"}' },
        { name: 'Broken', contentType: 'url', content: 'not a url' },
      ],
    },
    response: [
      201,
      {
        data: {
          created: 2,
          errors: ['codes[2].content: url content must be an absolute http:// or https:// URL'],
          items: [qrCodeExample],
        },
      },
    ],
  },
  'GET /api/v1/qr-codes/{id}/analytics': {
    response: [
      200,
      {
        data: {
          totalEvents: 3,
          uniqueVisitors: 2,
          eventsByDay: [
            { date: '2026-11-20', count: 1 },
            { date: '2026-11-21', count: 2 },
          ],
          topDevices: [{ name: 'mobile', count: 3 }],
          topBrowsers: [
            { name: 'Mobile Safari', count: 2 },
            { name: 'Chrome', count: 1 },
          ],
          topOs: [
            { name: 'iOS', count: 2 },
            { name: 'Android', count: 1 },
          ],
          topCountries: [{ name: 'DE', count: 3 }],
          topCities: [{ name: 'Berlin', count: 3 }],
          topReferrers: [{ name: 'direct', count: 3 }],
        },
      },
    ],
  },
  'POST /api/v1/showcases': {
    request: { qrCodeId: CODE_ID, title: 'Café Aurora', template: 'modern' },
    response: [201, { data: showcaseExample }],
  },
  'GET /api/v1/showcases/{id}': { response: [200, { data: showcaseExample }] },
  'POST /api/v1/api-keys': {
    request: { name: 'ci', environment: 'staging', scope: 'read' },
    response: [
      201,
      {
        data: {
          id: '0b6f4c1d-2e3a-4f5b-8c7d-9e0f1a2b3c4d',
          name: 'ci',
          environment: 'staging',
          scope: 'read',
          prefix: KEY.slice(0, 8),
          lastFour: KEY.slice(-4),
          createdAt: NOW,
          lastUsedAt: null,
          expiresAt: null,
          secret: KEY,
        },
      },
    ],
  },
}

function addExamples(operation: OperationObject, key: string): OperationObject {
  const example = EXAMPLES[key]
  const requestBody = operation.requestBody
  const requestMedia =
    requestBody && 'content' in requestBody ? requestBody.content['application/json'] : undefined
  if (requestMedia && example?.request !== undefined) requestMedia.example = example.request
  if (example?.response) {
    const [status, body] = example.response
    const media = operation.responses[String(status)]?.content?.['application/json']
    if (media) media.example = body
  }
  return operation
}

/** ts-rest leaves the content of non-JSON responses out; images are binary bodies of their own type. */
function documentBinary(operation: OperationObject, route: AppRoute): OperationObject {
  for (const [status, response] of Object.entries(route.responses)) {
    if (isAppRouteOtherResponse(response) && operation.responses[status]) {
      const isText = response.contentType.startsWith('text/csv')
      operation.responses[status].description = isText
        ? 'The scans as CSV (RFC 4180, UTF-8, a header line first), sent as an attachment'
        : `The image, as ${response.contentType} bytes`
      operation.responses[status].content = {
        [response.contentType]: {
          schema: { type: 'string', format: 'binary' },
        },
      }
    }
  }
  return operation
}

// ---------------------------------------------------------------------------------------------
// Named schemas. Each is generated from its zod schema the way ts-rest generates the operations
// (requests as input, responses as output), and every inlined copy of it becomes a `$ref`.
// ---------------------------------------------------------------------------------------------

type Direction = 'request' | 'response'
const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` })
const data = (schema: z.ZodTypeAny) => z.object({ data: schema })

/**
 * The named schemas, by component name. Larger first where one contains another, so nothing
 * hides behind a name that only matches part of it. The `{ data: … }` envelopes are rebuilt here
 * as the router writes them; they match the router's by structure.
 */
const NAMED_SCHEMAS: [name: string, schema: z.ZodTypeAny, direction: Direction][] = [
  ['Error', ErrorBody, 'response'],
  ['Issue', Issue, 'response'],
  ['QrCodeList', QrCodeList, 'response'],
  ['QrCodeResponse', data(QrCode), 'response'],
  ['QrCode', QrCode, 'response'],
  ['QrCodeAssets', Assets, 'response'],
  ['RedirectRule', RedirectRule, 'response'],
  ['BatchResultResponse', data(BatchResult), 'response'],
  ['BatchResult', BatchResult, 'response'],
  ['AccountAnalyticsResponse', data(AccountAnalytics), 'response'],
  ['AccountAnalytics', AccountAnalytics, 'response'],
  ['ScansReportResponse', data(ScansReport), 'response'],
  ['ScansReport', ScansReport, 'response'],
  ['AnalyticsResponse', data(Analytics), 'response'],
  ['Analytics', Analytics, 'response'],
  ['DayCount', DayCount, 'response'],
  ['NameCount', NameCount, 'response'],
  ['ShowcaseList', ShowcaseList, 'response'],
  ['ShowcaseResponse', data(Showcase), 'response'],
  ['Showcase', Showcase, 'response'],
  ['ApiKeyList', data(z.array(ApiKey)), 'response'],
  ['ApiKeyWithSecretResponse', data(ApiKeyWithSecret), 'response'],
  ['ApiKeyWithSecret', ApiKeyWithSecret, 'response'],
  ['ApiKey', ApiKey, 'response'],
  ['Success', z.object({ success: z.boolean() }), 'response'],
  ['WebhookList', WebhookList, 'response'],
  ['WebhookWithSecretResponse', data(WebhookWithSecret), 'response'],
  ['WebhookWithSecret', WebhookWithSecret, 'response'],
  ['WebhookResponse', data(Webhook), 'response'],
  ['Webhook', Webhook, 'response'],
  ['WebhookDeliveryList', WebhookDeliveryList, 'response'],
  ['WebhookDeliveryResponse', data(WebhookDelivery), 'response'],
  ['WebhookDelivery', WebhookDelivery, 'response'],
  ['CreateWebhook', CreateWebhook, 'request'],
  ['UpdateWebhook', UpdateWebhook, 'request'],
  ['TagList', TagList, 'response'],
  ['TagCount', TagCount, 'response'],
  ['BulkUpdateResult', BulkUpdateResult, 'response'],
  ['BulkDeleteResult', BulkDeleteResult, 'response'],
  ['BulkRestoreResult', BulkRestoreResult, 'response'],
  ['CreateQrCode', CreateQrCode, 'request'],
  ['UpdateQrCode', UpdateQrCode, 'request'],
  ['BatchCreate', BatchCreate, 'request'],
  ['CreateShowcase', CreateShowcase, 'request'],
  ['UpdateShowcase', UpdateShowcase, 'request'],
  ['SocialLink', SocialLink, 'request'],
  ['CtaButton', CtaButton, 'request'],
  ['CreateApiKey', CreateApiKey, 'request'],
  ['RotateApiKey', RotateApiKey, 'request'],
  ['BulkUpdate', BulkUpdate, 'request'],
  ['BulkIds', BulkIds, 'request'],
]

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Replaces, top down, every subschema equal (as JSON) to a named one by a `$ref`. `skipRoot`
 * keeps a component from naming itself. A nullable copy stays inline: in OpenAPI 3.0 `nullable`
 * needs a `type` beside it, and `allOf: [$ref]` would refuse the null it allows.
 */
function refNamed(node: unknown, byJson: Map<string, string>, skipRoot = false): unknown {
  if (Array.isArray(node)) return node.map((item) => refNamed(item, byJson))
  if (!isObject(node)) return node
  if (!skipRoot) {
    const name = byJson.get(JSON.stringify(node))
    if (name) return ref(name)
  }
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    // Examples are values, not schemas.
    out[key] = key === 'example' || key === 'examples' ? value : refNamed(value, byJson)
  }
  return out
}

/** The named schemas of `components.schemas`, and the map from their JSON to their name. */
function namedSchemas(): { schemas: Record<string, SchemaObject>; byJson: Map<string, string> } {
  const generated: Record<string, SchemaObject> = {}
  const byJson = new Map<string, string>()
  for (const [name, schema, direction] of NAMED_SCHEMAS) {
    const json = generateSchema(schema, direction === 'response') as SchemaObject
    generated[name] = json
    const key = JSON.stringify(json)
    if (!byJson.has(key)) byJson.set(key, name)
  }
  // Batch items are checked one by one at run time (their zod type accepts anything); each is a CreateQrCode.
  const codes = generated.BatchCreate?.properties?.codes as SchemaObject | undefined
  if (codes) {
    codes.items = ref('CreateQrCode')
    codes.description =
      '1–100 CreateQrCode objects. Only this envelope is checked as a whole (a body that is not `{ codes: [...] }` with 1–100 items is a 400 that creates nothing); each item is then checked one by one, and an invalid item becomes one string in the answer’s `errors` instead of failing the request.'
  }
  const schemas: Record<string, SchemaObject> = {}
  for (const [name, json] of Object.entries(generated)) {
    schemas[name] = refNamed(json, byJson, true) as SchemaObject
  }
  return { schemas, byJson }
}

// ---------------------------------------------------------------------------------------------
// Errors and headers: one shared response per error status, with its codes and `details` keys.
// ---------------------------------------------------------------------------------------------

const header = (description: string, schema: SchemaObject, required = false): HeaderObject => ({
  description,
  required,
  schema,
})

const HEADERS: Record<string, HeaderObject> = {
  'X-Request-Id': header(
    'The request id; quote it to support. The 500 log line carries it too.',
    {
      type: 'string',
    },
    true,
  ),
  'X-RateLimit-Limit': header('Requests allowed in the current 60-second window.', { type: 'integer' }, true),
  'X-RateLimit-Remaining': header('Requests left in the current window.', { type: 'integer' }, true),
  'X-RateLimit-Reset': header('Whole seconds until the window resets.', { type: 'integer' }, true),
  'Retry-After': header('Seconds to wait before retrying.', { type: 'integer' }, true),
  'Cache-Control': header(
    '`no-store` on JSON answers; images say how long they may be cached.',
    {
      type: 'string',
    },
    true,
  ),
  'X-Content-Type-Options': header('Always `nosniff`.', { type: 'string', enum: ['nosniff'] }, true),
  ETag: header(
    'The image’s entity tag; send it back in If-None-Match to get a 304.',
    { type: 'string' },
    true,
  ),
  'Content-Disposition': header('`attachment; filename=…` when the request asked `download=true`.', {
    type: 'string',
  }),
  'Idempotent-Replayed': header(
    '`true` when this is the stored answer to an earlier request with the same Idempotency-Key and body.',
    { type: 'string', enum: ['true'] },
  ),
}
const headerRef = (name: keyof typeof HEADERS & string): ReferenceObject => ({
  $ref: `#/components/headers/${name}`,
})

/** Headers on every /api/v1 answer. */
const COMMON_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Cache-Control',
  'X-Content-Type-Options',
] as const
/** A POST's 4xx answer from its handler is stored with its Idempotency-Key and replayed like a success. */
const REPLAYABLE = ['Idempotent-Replayed'] as const
/** An answer of the server itself (500) or of a missing database (503) may come before the rate limit counted it. */
const ALWAYS_HEADERS = ['X-Request-Id', 'Cache-Control', 'X-Content-Type-Options'] as const

function headersOf(
  names: readonly string[],
  optional: readonly string[] = [],
): Record<string, ReferenceObject | HeaderObject> {
  const out: Record<string, ReferenceObject | HeaderObject> = {}
  for (const name of names) out[name] = headerRef(name)
  for (const name of optional) {
    const base = HEADERS[name]
    out[name] = base?.required ? { ...base, required: false } : headerRef(name)
  }
  return out
}

interface ErrorStatus {
  name: string
  description: string
  details: string
  headers: readonly string[]
  optionalHeaders?: readonly string[]
}

const ERROR_RESPONSES: Record<number, ErrorStatus> = {
  400: {
    name: 'BadRequest',
    description: 'The request is invalid.',
    details:
      '`validation_error`: body, query or path fails the schema (unknown fields and query parameters included); `details.issues` lists `{ path, message }`. `invalid_json`: the body is not JSON. `invalid_body`: the body cannot be decoded as its Content-Encoding says. `unscannable`: a styled code failed the decode check (its renders did not all read back); `details.checks` lists `{ size, decoder, ok }` for each render and decoder.',
    headers: COMMON_HEADERS,
    optionalHeaders: REPLAYABLE,
  },
  401: {
    name: 'Unauthorized',
    description: 'Missing, malformed, unknown or revoked API key.',
    details: '`unauthorized`.',
    headers: COMMON_HEADERS,
  },
  403: {
    name: 'Forbidden',
    description: 'The key may not do this.',
    details:
      '`plan_required`: the account’s plan does not include the API. `insufficient_scope`: the key’s scope does not cover the operation.',
    headers: COMMON_HEADERS,
  },
  404: {
    name: 'NotFound',
    description: 'Unknown id, another account’s resource, or a deleted one.',
    details: '`not_found`.',
    headers: COMMON_HEADERS,
    optionalHeaders: REPLAYABLE,
  },
  409: {
    name: 'Conflict',
    description: 'The request conflicts with stored state.',
    details:
      '`conflict`: a taken slug or externalId (`details.existingId` names the code holding the externalId), or an Idempotency-Key reused while its first request runs (`details.reason: in_progress`, retry shortly) or with another body (`details.reason: mismatch`, never retry), with `details.idempotencyKey`.',
    headers: COMMON_HEADERS,
    optionalHeaders: REPLAYABLE,
  },
  413: {
    name: 'PayloadTooLarge',
    description: 'The body is over 1 MiB. Any operation answers it to a body that large.',
    details: '`payload_too_large`, with `details.limitBytes`.',
    headers: COMMON_HEADERS,
  },
  415: {
    name: 'UnsupportedMediaType',
    description:
      'A body that is not JSON (or in an unsupported Content-Encoding). Any operation answers it to such a body.',
    details: '`unsupported_media_type`, with `details.contentType` when the Content-Type was the problem.',
    headers: COMMON_HEADERS,
  },
  429: {
    name: 'TooManyRequests',
    description:
      'Over the rate limit: 100 requests per 60-second window per key (per client address without a valid key).',
    details: '`rate_limited`, with `details.retryAfter` in seconds (as the Retry-After header).',
    headers: [...COMMON_HEADERS, 'Retry-After'],
  },
  500: {
    name: 'InternalError',
    description: 'An unexpected failure; no stack or SQL in the body.',
    details: '`internal_error`, with `details.requestId` (as the X-Request-Id header).',
    headers: ALWAYS_HEADERS,
    optionalHeaders: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
  },
  503: {
    name: 'ServiceUnavailable',
    description: 'The database is unreachable or locked; try again after Retry-After seconds.',
    details: '`service_unavailable`, with `details.retryAfter` in seconds.',
    headers: [...ALWAYS_HEADERS, 'Retry-After'],
    optionalHeaders: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
  },
}

/** The error codes each status carries, from the contract's ERROR_STATUS. */
function codesOf(status: number): ErrorCode[] {
  return (Object.entries(ERROR_STATUS) as [ErrorCode, number][])
    .filter(([, codeStatus]) => codeStatus === status)
    .map(([code]) => code)
}

const errorExample400 = {
  error: 'validation_error',
  details: {
    message: 'Invalid request body',
    issues: [{ path: 'targetUrl', message: 'Must be an absolute http:// or https:// URL' }],
  },
}

function errorResponses(): Record<string, ResponseObject> {
  const out: Record<string, ResponseObject> = {}
  for (const [status, spec] of Object.entries(ERROR_RESPONSES)) {
    const codes = codesOf(Number(status))
    out[spec.name] = {
      description: `${spec.description} Error codes: ${spec.details}`,
      headers: headersOf(spec.headers, spec.optionalHeaders),
      content: {
        'application/json': {
          schema: {
            allOf: [ref('Error'), { type: 'object', properties: { error: { type: 'string', enum: codes } } }],
          },
          ...(status === '400' ? { example: errorExample400 } : {}),
        },
      },
    }
  }
  return out
}

/**
 * A nullable enum (`disabledReason`) must list null among its values too: OpenAPI 3.0 validators
 * check `enum` before `nullable`.
 */
function nullInNullableEnums(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) nullInNullableEnums(item)
    return
  }
  if (!isObject(node)) return
  if (node.nullable === true && Array.isArray(node.enum) && !node.enum.includes(null)) node.enum.push(null)
  for (const value of Object.values(node)) nullInNullableEnums(value)
}

/** Statuses every /api/v1 operation can answer: the gate, the body checks and the database come first. */
const ANY_OPERATION = [400, 401, 403, 413, 415, 429, 500, 503]

// ---------------------------------------------------------------------------------------------
// Operations.
// ---------------------------------------------------------------------------------------------

/** Operations whose key does not read as a verb on its own. */
const NAMED_OPERATIONS: Record<string, string> = {
  'webhooks.deliveries': 'listWebhookDeliveries',
  'webhooks.redeliver': 'redeliverWebhookDelivery',
  'webhooks.rotateSecret': 'rotateWebhookSecret',
  'analytics.account': 'getAccountAnalytics',
  'analytics.export': 'exportScans',
  'analytics.scans': 'getQrCodeScans',
}

/** `qrCodes.create` → `createQrCode`, `qrCodes.imagePng` → `getQrCodeImagePng`, `apiKeys.list` → `listApiKeys`. */
export function operationIdOf(group: string, key: string): string {
  const named = NAMED_OPERATIONS[`${group}.${key}`]
  if (named) return named
  const plural = group.charAt(0).toUpperCase() + group.slice(1)
  const singular = plural.replace(/s$/, '')
  if (key === 'list') return `list${plural}`
  if (key === 'batch') return `batchCreate${plural}`
  // qrCodes.bulkUpdate → bulkUpdateQrCodes: a bulk route acts on many.
  if (key.startsWith('bulk')) return `${key}${plural}`
  if (key === 'analytics') return `get${singular}Analytics`
  if (key === 'content') return `get${singular}Content`
  if (key.startsWith('image')) return `get${singular}${key.charAt(0).toUpperCase()}${key.slice(1)}`
  return `${key}${singular}`
}

/** Every contract route with its group and key. */
function contractRoutes(): { group: string; key: string; route: AppRoute }[] {
  return Object.entries(contract).flatMap(([group, routes]) =>
    Object.entries(routes as Record<string, AppRoute>).flatMap(([key, route]) =>
      isAppRoute(route) ? [{ group, key, route }] : [],
    ),
  )
}

const QUERY_BOOLEAN: SchemaObject = { type: 'string', enum: ['true', 'false', '1', '0'] }
const isQueryBoolean = (schema: unknown) =>
  isObject(schema) &&
  Array.isArray(schema.oneOf) &&
  schema.oneOf.length === 2 &&
  JSON.stringify(schema.oneOf[0]) === '{"type":"boolean"}'

function isStrictObject(schema: unknown): boolean {
  return schema instanceof z.ZodObject && schema._def.unknownKeys === 'strict'
}

function successHeaders(route: AppRoute, status: number): Record<string, ReferenceObject | HeaderObject> {
  const other = Object.values(route.responses).find(isAppRouteOtherResponse)
  const isCsv = other?.contentType.startsWith('text/csv') ?? false
  const isImage = other !== undefined && !isCsv
  const names: string[] = [...COMMON_HEADERS]
  const optional: string[] = []
  if (isImage) names.push('ETag')
  if ((isImage || isCsv) && status === 200) optional.push('Content-Disposition')
  if (route.method === 'POST') optional.push('Idempotent-Replayed')
  return headersOf(names, optional)
}

/** Requests exact, every answer documented: statuses, codes, headers. */
function refineOperation(operation: OperationObject, group: string, key: string, route: AppRoute): void {
  operation.operationId = operationIdOf(group, key)
  operation['x-ts-rest-route'] = `${group}.${key}`

  const notes: string[] = []
  for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
    if (isQueryBoolean(parameter.schema)) {
      parameter.schema = { ...QUERY_BOOLEAN }
      parameter.description = `${parameter.description ?? ''} (\`true\` or \`1\`; \`false\` or \`0\`)`.trim()
    }
  }
  if (route.query && isStrictObject(route.query)) {
    operation['x-unknown-query-parameters'] = 'refused'
    notes.push('Unknown query parameters are refused with 400 `validation_error`.')
  }

  const requestBody = operation.requestBody as RequestBodyObject | undefined
  if (requestBody && isAppRouteMutation(route)) {
    const body = route.body as z.ZodTypeAny
    requestBody.required = !(body instanceof z.ZodOptional)
    requestBody.description = 'JSON body (Content-Type: application/json, at most 1 MiB).'
    if (isStrictObject(body)) notes.push('Unknown body fields are refused with 400 `validation_error`.')
  }
  if (key === 'batch') notes.push('Batch items are checked one by one: see `BatchCreate`.')

  const responses: Record<string, ResponseObject | ReferenceObject> = {}
  const statuses = new Set([...Object.keys(operation.responses).map(Number), ...ANY_OPERATION])
  for (const status of [...statuses].sort((a, b) => a - b)) {
    const error = ERROR_RESPONSES[status]
    if (status >= 400 && error) {
      responses[status] = { $ref: `#/components/responses/${error.name}` }
      continue
    }
    const response = operation.responses[status] as ResponseObject
    const description =
      status === 304
        ? 'Not modified: the image still has the ETag sent in If-None-Match.'
        : response.description
    responses[status] = {
      ...response,
      description: description === String(status) ? 'Success' : description,
      headers: successHeaders(route, status),
    }
  }
  operation.responses = responses
  if (notes.length) operation.description = `${operation.description ?? ''}\n\n${notes.join(' ')}`.trim()
}

const DESCRIPTION = `Create, manage and track static and dynamic QR codes and their showcase pages.

Every request carries \`Authorization: Bearer qrk_…\`. Errors answer \`{ error, details }\` (the \`Error\` schema): \`error\` is a stable code, \`details.message\` is for people.

Every path in this document starts with \`${API_PREFIX}\`, so the base URL a client is given is the bare origin of the server (the \`servers\` URL, such as \`https://qrctl.example\`), **without** \`${API_PREFIX}\`.

100 requests per minute per key; every answer carries the X-RateLimit-* headers and X-Request-Id. Unknown body fields and, where an operation takes a query, unknown query parameters are refused with 400.`

/** The OpenAPI 3 document of the API, generated from the contract. */
export function buildOpenApi(): OpenAPIObject {
  const { schemas, byJson } = namedSchemas()
  const doc = generateOpenApi(
    contract,
    {
      info: {
        title: 'qrctl API',
        version: '1.1.0',
        description: DESCRIPTION,
        license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
      },
      servers: [
        { url: 'http://localhost:3000', description: 'Local server (npm start); paths carry /api/v1' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key: qrk_ followed by 40 characters',
          },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    {
      setOperationId: 'concatenated-path',
      operationMapper: (operation, route) =>
        addExamples(
          documentBinary(operation, route),
          `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`,
        ),
    },
  )
  for (const { group, key, route } of contractRoutes()) {
    const path = route.path.replace(/:(\w+)/g, '{$1}')
    const operation = doc.paths[path]?.[route.method.toLowerCase()] as OperationObject | undefined
    if (!operation) throw new Error(`${route.method} ${path} is missing from the generated document`)
    refineOperation(operation, group, key, route)
  }
  doc.paths = refNamed(doc.paths, byJson) as OpenAPIObject['paths']
  nullInNullableEnums(doc.paths)
  nullInNullableEnums(schemas)
  doc.components = {
    ...doc.components,
    schemas,
    responses: errorResponses(),
    headers: HEADERS,
  }
  return doc
}
