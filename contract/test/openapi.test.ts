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
import { buildOpenApi } from '../src/openapi.js'
import { contract } from '../src/router.js'

const committed: unknown = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8'))
/** Through JSON, as the script writes it: `undefined` keys drop out. */
const doc = JSON.parse(JSON.stringify(buildOpenApi())) as ReturnType<typeof buildOpenApi>

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const

type Operation = { method: string; path: string; operation: OperationObject }
const operations: Operation[] = Object.entries(doc.paths).flatMap(([path, item]) =>
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

/** The contract route behind an operation, found by its operationId (`qrCodes.create`). */
function routeOf(op: OperationObject): AppRoute {
  const [group, name] = (op.operationId ?? '').split('.') as [string, string]
  const route = (contract as unknown as Record<string, Record<string, AppRoute | undefined>>)[group]?.[name]
  if (!route || !isAppRoute(route)) throw new Error(`no route for operationId ${op.operationId}`)
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
  it('is version 1.0.0 with bearer authentication everywhere', () => {
    expect(doc.openapi).toMatch(/^3\.0\./)
    expect(doc.info.version).toBe('1.0.0')
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
    'GET /api/v1/api-keys',
    'POST /api/v1/api-keys',
    'DELETE /api/v1/api-keys/{id}',
    'POST /api/v1/api-keys/{id}/rotate',
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
  const errorSchema = responseSchema(operation('GET', '/api/v1/qr-codes/{id}'), 404)

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

  it('all carry the error schema', () => {
    for (const op of operations) {
      for (const [status, response] of Object.entries(op.operation.responses)) {
        if (Number(status) < 400) continue
        expect(jsonSchema(response as ResponseObject), `${keyOf(op)} ${status}`).toEqual(errorSchema)
      }
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
