import { readFileSync } from 'node:fs'
import { Validator } from '@seriousme/openapi-schema-validator'
import { type AppRoute, isAppRoute, isAppRouteMutation } from '@ts-rest/core'
import type {
  OperationObject,
  ParameterObject,
  RequestBodyObject,
  ResponseObject,
  SchemaObject,
} from 'openapi3-ts'
import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { ERROR_STATUS } from '../src/errors.js'
import { buildOpenApi } from '../src/openapi.js'
import { contract } from '../src/router.js'

const committed: unknown = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8'))
/** Through JSON, as the script writes it: `undefined` keys drop out. */
const doc = JSON.parse(JSON.stringify(buildOpenApi())) as ReturnType<typeof buildOpenApi>

/** The document with every local `$ref` replaced by what it names, for structural assertions. */
function dereference<T>(node: T, root: unknown = node): T {
  if (Array.isArray(node)) return node.map((item) => dereference(item, root)) as T
  if (typeof node !== 'object' || node === null) return node
  const $ref = (node as { $ref?: unknown }).$ref
  if (typeof $ref === 'string') {
    const target = $ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, part) => (at as Record<string, unknown>)?.[part], root)
    if (target === undefined) throw new Error(`unresolved ${$ref}`)
    return dereference(target as T, root)
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, dereference(value, root)])) as T
}
const flat = dereference(doc)

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const

type Operation = { method: string; path: string; operation: OperationObject }
const operations: Operation[] = Object.entries(flat.paths).flatMap(([path, item]) =>
  METHODS.flatMap((method) => {
    const operation = (item as Record<string, OperationObject | undefined>)[method]
    return operation ? [{ method: method.toUpperCase(), path, operation }] : []
  }),
)
const keyOf = (op: Operation) => `${op.method} ${op.path}`

function operation(method: string, path: string): OperationObject {
  const found = operations.find((op) => op.method === method && op.path === path)
  if (!found) throw new Error(`${method} ${path} is not in the document`)
  return found.operation
}

function jsonSchema(media: { content?: Record<string, { schema?: unknown }> } | undefined): SchemaObject {
  const schema = media?.content?.['application/json']?.schema
  if (!schema) throw new Error('no application/json schema')
  return schema as SchemaObject
}

const responseSchema = (op: OperationObject, status: number) =>
  jsonSchema(op.responses[String(status)] as ResponseObject)
const requestSchema = (op: OperationObject) => jsonSchema(op.requestBody as RequestBodyObject)
const propertyNames = (schema: SchemaObject) => Object.keys(schema.properties ?? {})
const dataOf = (schema: SchemaObject) => schema.properties?.data as SchemaObject
const parameters = (op: OperationObject) =>
  ((op.parameters ?? []) as ParameterObject[]).map((parameter) => `${parameter.in}:${parameter.name}`)

/** The contract route behind an operation, found by its `x-ts-rest-route` (`qrCodes.create`). */
function routeOf(op: OperationObject): AppRoute {
  const [group, name] = String(op['x-ts-rest-route'] ?? '').split('.') as [string, string]
  const route = (contract as unknown as Record<string, Record<string, AppRoute | undefined>>)[group]?.[name]
  if (!route || !isAppRoute(route)) throw new Error(`no route for ${op.operationId}`)
  return route
}

describe('the committed openapi.json', () => {
  it('equals what the contract generates', () => {
    expect(doc, 'contract/openapi.json is stale: run npm run openapi').toEqual(committed)
  })

  it('is a valid OpenAPI 3.0 document', async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(committed) as Record<string, unknown>)
    expect(result.errors, JSON.stringify(result.errors, null, 2)).toBeUndefined()
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.0')
  })

  it('would fail validation if it were broken', async () => {
    const broken = structuredClone(doc) as unknown as Record<string, Record<string, unknown>>
    delete broken.info?.title
    const result = await new Validator().validate(broken)
    expect(result.valid).toBe(false)
  })
})

describe('document metadata', () => {
  it('is version 1.1.0 (DESIGN §13–18 are additive) with bearer authentication everywhere', () => {
    expect(doc.openapi).toMatch(/^3\.0\./)
    expect(doc.info.version).toBe('1.1.0')
    expect(doc.info.title).toBe('qrctl API')
    expect(doc.components?.securitySchemes?.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(doc.security).toEqual([{ bearerAuth: [] }])
  })

  it('keeps every path under /api/v1', () => {
    for (const op of operations) expect(op.path, keyOf(op)).toMatch(/^\/api\/v1\//)
  })
})

describe('endpoints', () => {
  const SPEC_ENDPOINTS = [
    'GET /api/v1/qr-codes',
    'POST /api/v1/qr-codes',
    'GET /api/v1/qr-codes/{id}',
    'PATCH /api/v1/qr-codes/{id}',
    'DELETE /api/v1/qr-codes/{id}',
    'POST /api/v1/qr-codes/batch',
    'GET /api/v1/qr-codes/{id}/analytics',
    'GET /api/v1/showcases',
    'POST /api/v1/showcases',
    'GET /api/v1/showcases/{id}',
    'PATCH /api/v1/showcases/{id}',
    'DELETE /api/v1/showcases/{id}',
  ]
  const EXTENSIONS = [
    'POST /api/v1/qr-codes/{id}/restore',
    'GET /api/v1/qr-codes/{id}/image.png',
    'GET /api/v1/qr-codes/{id}/image.svg',
    'GET /api/v1/qr-codes/{id}/image.pdf',
    'POST /api/v1/qr-codes/preview.png',
    'POST /api/v1/qr-codes/preview.svg',
    'GET /api/v1/api-keys',
    'POST /api/v1/api-keys',
    'DELETE /api/v1/api-keys/{id}',
    'POST /api/v1/api-keys/{id}/rotate',
    'GET /api/v1/webhooks',
    'POST /api/v1/webhooks',
    'GET /api/v1/webhooks/{id}',
    'PATCH /api/v1/webhooks/{id}',
    'DELETE /api/v1/webhooks/{id}',
    'POST /api/v1/webhooks/{id}/test',
    'GET /api/v1/webhooks/{id}/deliveries',
    'POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver',
    'POST /api/v1/webhooks/{id}/rotate-secret',
    'POST /api/v1/qr-codes/bulk-update',
    'POST /api/v1/qr-codes/bulk-delete',
    'POST /api/v1/qr-codes/bulk-restore',
    'GET /api/v1/tags',
    'GET /api/v1/assets',
    'POST /api/v1/assets',
    'GET /api/v1/assets/{id}',
    'GET /api/v1/assets/{id}/content',
    'DELETE /api/v1/assets/{id}',
    'GET /api/v1/analytics',
    'GET /api/v1/analytics/export',
    'GET /api/v1/qr-codes/{id}/scans',
  ]

  it('include the 12 endpoints of spec section 4', () => {
    expect(SPEC_ENDPOINTS).toHaveLength(12)
    expect(operations.map(keyOf)).toEqual(expect.arrayContaining(SPEC_ENDPOINTS))
  })

  it('include the DESIGN extensions and nothing else', () => {
    expect(operations.map(keyOf).sort()).toEqual([...SPEC_ENDPOINTS, ...EXTENSIONS].sort())
  })

  it('have unique operation ids that name their contract route', () => {
    const ids = operations.map((op) => op.operation.operationId)
    expect(new Set(ids).size).toBe(operations.length)
    for (const op of operations) {
      const route = routeOf(op.operation)
      expect(`${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`).toBe(keyOf(op))
    }
  })

  it('have a summary and a description each', () => {
    for (const op of operations) {
      expect(op.operation.summary?.trim(), keyOf(op)).toBeTruthy()
      expect(op.operation.description?.trim(), keyOf(op)).toBeTruthy()
      expect(op.operation.description, keyOf(op)).not.toBe(op.operation.summary)
    }
  })

  it('declare the {id} path parameter where the path has one', () => {
    for (const op of operations.filter((candidate) => candidate.path.includes('{id}'))) {
      expect(parameters(op.operation), keyOf(op)).toContain('path:id')
    }
  })
})

describe('error responses', () => {
  const errorSchema = flat.components?.schemas?.Error as SchemaObject

  it('use the { error, details: { message } } body', () => {
    expect(errorSchema.required).toEqual(['error', 'details'])
    expect(errorSchema.properties?.error).toMatchObject({ type: 'string' })
    const details = errorSchema.properties?.details as SchemaObject
    expect(details.required).toEqual(['message'])
    expect(propertyNames(details)).toEqual([
      'message',
      'issues',
      'retryAfter',
      'requestId',
      'existingId',
      'checks',
      'idempotencyKey',
      'reason',
    ])
  })

  it('are declared by every operation: 400, 401, 403, 429 and 500', () => {
    for (const op of operations) {
      const statuses = Object.keys(op.operation.responses)
      expect(statuses, keyOf(op)).toEqual(expect.arrayContaining(['400', '401', '403', '429', '500']))
    }
  })

  it('include 404 for every {id} route and 413/415 for every JSON body', () => {
    for (const op of operations) {
      const statuses = Object.keys(op.operation.responses)
      if (op.path.includes('{id}')) expect(statuses, keyOf(op)).toContain('404')
      if (op.operation.requestBody)
        expect(statuses, keyOf(op)).toEqual(expect.arrayContaining(['413', '415']))
    }
  })

  it('all carry the error schema, with the codes of their status', () => {
    for (const op of operations) {
      for (const [status, response] of Object.entries(op.operation.responses)) {
        if (Number(status) < 400) continue
        const schema = jsonSchema(response as ResponseObject)
        const codes = Object.entries(ERROR_STATUS)
          .filter(([, codeStatus]) => String(codeStatus) === status)
          .map(([code]) => code)
        expect(codes.length, `${keyOf(op)} ${status} has error codes`).toBeGreaterThan(0)
        expect(schema, `${keyOf(op)} ${status}`).toEqual({
          allOf: [errorSchema, { type: 'object', properties: { error: { type: 'string', enum: codes } } }],
        })
      }
    }
  })

  it('are shared components, referenced by every operation', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item as Record<string, OperationObject>)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) >= 400) expect(response, `${method} ${path} ${status}`).toHaveProperty('$ref')
        }
      }
    }
    expect(JSON.stringify(doc).match(/"details":\{"type":"object"/g)).toHaveLength(1)
  })

  it('include 413 and 415 on every operation: the body checks run before routing', () => {
    for (const op of operations) {
      expect(Object.keys(op.operation.responses), keyOf(op)).toEqual(
        expect.arrayContaining(['400', '401', '403', '413', '415', '429', '500', '503']),
      )
    }
  })

  it('have no success status without a body schema, except 304', () => {
    for (const op of operations) {
      for (const [status, response] of Object.entries(op.operation.responses)) {
        if (Number(status) >= 300 && Number(status) !== 304) continue
        if (status === '304') expect((response as ResponseObject).content, keyOf(op)).toBeUndefined()
        else
          expect(
            Object.keys((response as ResponseObject).content ?? {}),
            `${keyOf(op)} ${status}`,
          ).toHaveLength(1)
      }
    }
  })
})

describe('DESIGN extensions in the schemas', () => {
  it('adds assets and shortUrl to a QR code', () => {
    const qrCode = dataOf(responseSchema(operation('GET', '/api/v1/qr-codes/{id}'), 200))
    expect(propertyNames(qrCode)).toEqual(
      expect.arrayContaining(['assets', 'shortUrl', 'shortCode', 'targetUrl']),
    )
    expect(propertyNames(qrCode.properties?.assets as SchemaObject)).toEqual(['png', 'svg', 'pdf'])
  })

  it('answers a list with data, total, limit and offset', () => {
    const list = responseSchema(operation('GET', '/api/v1/qr-codes'), 200)
    expect(list.required).toEqual(['data', 'total', 'limit', 'offset'])
    expect(parameters(operation('GET', '/api/v1/qr-codes'))).toEqual([
      'query:limit',
      'query:offset',
      'query:type',
      'query:externalId',
      'query:shortCode',
      'query:deleted',
      'query:tag',
      'query:search',
      'query:isActive',
      'query:sort',
    ])
  })

  it('documents batch items as CreateQrCode, dryRun, and items in the result', () => {
    const batch = operation('POST', '/api/v1/qr-codes/batch')
    const codes = requestSchema(batch).properties?.codes as SchemaObject
    expect(codes).toMatchObject({ type: 'array', minItems: 1, maxItems: 100 })
    expect(codes.items).toEqual(requestSchema(operation('POST', '/api/v1/qr-codes')))
    expect(parameters(batch)).toContain('query:dryRun')
    expect(propertyNames(dataOf(responseSchema(batch, 201)))).toEqual(['created', 'errors', 'items'])
  })

  it('accepts an Idempotency-Key on every POST', () => {
    for (const op of operations.filter((candidate) => candidate.method === 'POST')) {
      expect(parameters(op.operation), keyOf(op)).toContain('header:idempotency-key')
    }
  })

  it('sets socialLinks and ctaButtons on update only, and adds url to a showcase', () => {
    const create = propertyNames(requestSchema(operation('POST', '/api/v1/showcases')))
    const update = propertyNames(requestSchema(operation('PATCH', '/api/v1/showcases/{id}')))
    expect(create).not.toContain('socialLinks')
    expect(create).not.toContain('ctaButtons')
    expect(update).toEqual(expect.arrayContaining(['socialLinks', 'ctaButtons', 'isActive']))
    expect(propertyNames(dataOf(responseSchema(operation('GET', '/api/v1/showcases/{id}'), 200)))).toContain(
      'url',
    )
    expect(parameters(operation('GET', '/api/v1/showcases'))).toEqual([
      'query:limit',
      'query:offset',
      'query:qrCodeId',
    ])
  })

  it('serves images as binary of their own media type', () => {
    for (const [format, mediaType] of [
      ['png', 'image/png'],
      ['svg', 'image/svg+xml'],
      ['pdf', 'application/pdf'],
    ]) {
      const image = operation('GET', `/api/v1/qr-codes/{id}/image.${format}`)
      expect((image.responses['200'] as ResponseObject).content).toEqual({
        [mediaType as string]: { schema: { type: 'string', format: 'binary' } },
      })
      expect(parameters(image)).toEqual(['path:id', 'query:size', 'query:download'])
    }
  })

  it('rotates keys with a grace period and returns the secret once', () => {
    const rotate = operation('POST', '/api/v1/api-keys/{id}/rotate')
    expect(propertyNames(requestSchema(rotate))).toEqual(['gracePeriodSeconds'])
    expect(propertyNames(dataOf(responseSchema(rotate, 201)))).toContain('secret')
    expect(
      propertyNames(dataOf(responseSchema(operation('GET', '/api/v1/api-keys'), 200)).items as SchemaObject),
    ).not.toContain('secret')
  })
})

describe('examples', () => {
  const mediaOf = (op: OperationObject, status: number) =>
    (op.responses[String(status)] as ResponseObject).content?.['application/json']

  it('exist for creating a QR code and for the list', () => {
    const create = operation('POST', '/api/v1/qr-codes')
    const requestMedia = (create.requestBody as RequestBodyObject).content['application/json']
    expect(requestMedia?.example).toMatchObject({ name: expect.any(String), contentType: 'url' })
    expect(mediaOf(create, 201)?.example).toMatchObject({ data: { id: expect.any(String) } })
    expect(mediaOf(operation('GET', '/api/v1/qr-codes'), 200)?.example).toMatchObject({ total: 1, limit: 50 })
  })

  it('match the contract schemas they illustrate', () => {
    let checked = 0
    for (const op of operations) {
      const route = routeOf(op.operation)
      const requestExample = (op.operation.requestBody as RequestBodyObject | undefined)?.content?.[
        'application/json'
      ]?.example
      if (requestExample !== undefined) {
        const body = isAppRouteMutation(route) ? (route.body as z.ZodTypeAny) : undefined
        expect(body, `${keyOf(op)} has a request example but no body schema`).toBeDefined()
        const result = body?.safeParse(requestExample)
        expect(result?.error?.issues, `${keyOf(op)} request example`).toBeUndefined()
        checked++
      }
      for (const [status, response] of Object.entries(op.operation.responses)) {
        const example = (response as ResponseObject).content?.['application/json']?.example
        if (example === undefined) continue
        const schema = route.responses[Number(status)] as z.ZodTypeAny
        expect(schema.safeParse(example).error?.issues, `${keyOf(op)} ${status} example`).toBeUndefined()
        checked++
      }
    }
    expect(checked).toBeGreaterThanOrEqual(20)
  })
})

describe('named schemas', () => {
  const schemas = (doc.components?.schemas ?? {}) as Record<string, SchemaObject>
  const refTo = (name: string) => ({ $ref: `#/components/schemas/${name}` })

  it('exist for every resource, request and error', () => {
    expect(Object.keys(schemas)).toEqual(
      expect.arrayContaining([
        'QrCode',
        'QrCodeList',
        'CreateQrCode',
        'UpdateQrCode',
        'BatchCreate',
        'BatchResult',
        'Analytics',
        'Showcase',
        'ShowcaseList',
        'CreateShowcase',
        'UpdateShowcase',
        'ApiKey',
        'ApiKeyWithSecret',
        'CreateApiKey',
        'RotateApiKey',
        'Error',
      ]),
    )
  })

  it('are referenced by the operations instead of inlined', () => {
    const raw = (method: string, path: string) =>
      (doc.paths[path] as Record<string, OperationObject>)[method] as OperationObject
    const body = (op: OperationObject) =>
      (op.requestBody as RequestBodyObject).content['application/json']?.schema
    const answer = (op: OperationObject, status: number) =>
      (op.responses[String(status)] as ResponseObject).content?.['application/json']?.schema
    expect(body(raw('post', '/api/v1/qr-codes'))).toEqual(refTo('CreateQrCode'))
    expect(body(raw('patch', '/api/v1/qr-codes/{id}'))).toEqual(refTo('UpdateQrCode'))
    expect(body(raw('post', '/api/v1/qr-codes/batch'))).toEqual(refTo('BatchCreate'))
    expect(answer(raw('get', '/api/v1/qr-codes'), 200)).toEqual(refTo('QrCodeList'))
    expect(answer(raw('get', '/api/v1/qr-codes/{id}'), 200)).toEqual(refTo('QrCodeResponse'))
    expect(answer(raw('post', '/api/v1/api-keys'), 201)).toEqual(refTo('ApiKeyWithSecretResponse'))
    expect(schemas.QrCodeResponse?.properties?.data).toEqual(refTo('QrCode'))
    expect((schemas.QrCodeList?.properties?.data as SchemaObject | undefined)?.items).toEqual(refTo('QrCode'))
    expect((schemas.BatchCreate?.properties?.codes as SchemaObject | undefined)?.items).toEqual(
      refTo('CreateQrCode'),
    )
    expect(schemas.QrCode?.properties?.style).toMatchObject({ type: 'object', nullable: true })
  })

  it('keep the lengths and formats the contract enforces', () => {
    expect(schemas.CreateQrCode?.properties?.name).toMatchObject({ minLength: 1, maxLength: 200 })
    expect(schemas.CreateQrCode?.required).toEqual(['name', 'contentType', 'content'])
    expect(schemas.CreateQrCode?.additionalProperties).toBe(false)
    expect(schemas.CreateApiKey?.properties?.environment).toMatchObject({
      maxLength: 50,
      pattern: expect.any(String),
    })
    expect(schemas.QrCode?.properties?.id).toEqual({ type: 'string', format: 'uuid' })
  })
})

describe('operations for generated clients', () => {
  it('have method-like operationIds from the contract keys', () => {
    const ids = Object.fromEntries(operations.map((op) => [keyOf(op), op.operation.operationId]))
    expect(ids).toMatchObject({
      'GET /api/v1/qr-codes': 'listQrCodes',
      'POST /api/v1/qr-codes': 'createQrCode',
      'POST /api/v1/qr-codes/batch': 'batchCreateQrCodes',
      'GET /api/v1/qr-codes/{id}/analytics': 'getQrCodeAnalytics',
      'GET /api/v1/qr-codes/{id}/image.png': 'getQrCodeImagePng',
      'GET /api/v1/showcases/{id}': 'getShowcase',
      'DELETE /api/v1/api-keys/{id}': 'revokeApiKey',
    })
    for (const id of Object.values(ids)) expect(id).toMatch(/^[a-z][A-Za-z]+$/)
  })

  it('mark request bodies required, except the optional rotate body', () => {
    for (const op of operations) {
      const body = op.operation.requestBody as RequestBodyObject | undefined
      if (!body) continue
      expect(body.required, keyOf(op)).toBe(keyOf(op) !== 'POST /api/v1/api-keys/{id}/rotate')
    }
    expect(operation('POST', '/api/v1/qr-codes').requestBody).toMatchObject({ required: true })
  })

  it('document boolean query parameters as the strings the server accepts', () => {
    const flags = operations.flatMap((op) =>
      ((op.operation.parameters ?? []) as ParameterObject[]).filter((p) =>
        ['dryRun', 'deleted', 'download'].includes(p.name),
      ),
    )
    expect(flags.length).toBe(5)
    for (const flag of flags)
      expect(flag.schema).toEqual({ type: 'string', enum: ['true', 'false', '1', '0'] })
  })

  it('say unknown query parameters are refused where an operation takes a query', () => {
    for (const op of operations) {
      const takesQuery = ((op.operation.parameters ?? []) as ParameterObject[]).some((p) => p.in === 'query')
      expect(op.operation['x-unknown-query-parameters'], keyOf(op)).toBe(takesQuery ? 'refused' : undefined)
      if (takesQuery)
        expect(op.operation.description, keyOf(op)).toContain('Unknown query parameters are refused')
    }
  })

  it('declare the response headers', () => {
    const headerNames = (op: OperationObject, status: number) =>
      Object.keys((op.responses[String(status)] as ResponseObject).headers ?? {})
    const common = [
      'X-Request-Id',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Cache-Control',
      'X-Content-Type-Options',
    ]
    for (const op of operations) {
      for (const status of Object.keys(op.operation.responses).map(Number)) {
        expect(headerNames(op.operation, status), `${keyOf(op)} ${status}`).toContain('X-Request-Id')
        if (status < 500) expect(headerNames(op.operation, status)).toEqual(expect.arrayContaining(common))
      }
      expect(headerNames(op.operation, 429)).toContain('Retry-After')
      expect(headerNames(op.operation, 503)).toContain('Retry-After')
      if (op.method === 'POST') {
        const success = Object.keys(op.operation.responses).find((status) => status.startsWith('2'))
        expect(headerNames(op.operation, Number(success)), keyOf(op)).toContain('Idempotent-Replayed')
      }
    }
    for (const status of [400, 404, 409]) {
      expect(headerNames(operation('POST', '/api/v1/showcases'), status), `replayed ${status}`).toContain(
        'Idempotent-Replayed',
      )
    }
    const png = operation('GET', '/api/v1/qr-codes/{id}/image.png')
    expect(headerNames(png, 200)).toEqual(expect.arrayContaining(['ETag', 'Content-Disposition']))
    expect(headerNames(png, 304)).toContain('ETag')
  })

  it('say that the base URL is the bare origin, the paths carrying /api/v1', () => {
    expect(doc.info.description).toContain('without** `/api/v1`')
    expect(doc.servers?.[0]?.url).not.toContain('/api/v1')
  })
})
