import { createRequire } from 'node:module'
import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'

/**
 * Checks an answer of the API against the OpenAPI document the server serves
 * (contract/openapi.json): its status must be documented for the operation, every header that
 * answer declares required must be there (and match its schema), its content type must be one
 * the answer declares (none for a bodiless one), and a JSON body must match the schema.
 * Validators are compiled once per process, on first use.
 */

type Json = Record<string, unknown>
interface MediaType {
  schema?: Json
}
interface ResponseSpec {
  headers?: Record<string, Json>
  content?: Record<string, MediaType>
}
interface Operation {
  operationId?: string
  responses: Record<string, ResponseSpec | { $ref: string }>
}

const require = createRequire(import.meta.url)
const doc = require('@qrctl/contract/openapi.json') as {
  paths: Record<string, Record<string, Operation>>
  components: Json & { responses: Record<string, ResponseSpec>; headers: Record<string, Json> }
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }))
ajv.addFormat('binary', true)
const DOC_ID = 'qrctl-openapi'
ajv.addSchema({ $id: DOC_ID, components: doc.components } as Json)

const API_PREFIX = '/api/v1'

/**
 * Every documented operation, by method, with the regular expression of its path. Express
 * routes (and so the server) ignore case and one trailing slash: `/api/v1/Showcases/` is
 * the documented `/api/v1/showcases`, so the check matches paths the same way.
 */
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({
    method: method.toUpperCase(),
    path,
    pattern: new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}/?$`, 'i'),
    operation,
  })),
)

function resolve<T>(node: T | { $ref: string }): T {
  if (node && typeof node === 'object' && '$ref' in node && typeof node.$ref === 'string') {
    const target = node.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, part) => (at as Json | undefined)?.[part], doc)
    if (target === undefined) throw new Error(`openapi.json: unresolved ${node.$ref}`)
    return resolve(target as T)
  }
  return node as T
}

/** By schema text: the error answers of all operations share a few validators. */
const validators = new Map<string, ValidateFunction>()
function validatorFor(schema: Json): ValidateFunction {
  // The document's local references, made to point into the document added above.
  const text = JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`)
  let validate = validators.get(text)
  if (!validate) {
    validate = ajv.compile(JSON.parse(text) as Json)
    validators.set(text, validate)
  }
  return validate
}

const headerOk = (value: string, schema: Json | undefined): boolean => {
  if (!schema) return true
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return false
  if (schema.type === 'integer') return /^-?\d+$/.test(value)
  return true
}

export interface Answer {
  method: string
  url: string
  status: number
  headers: Headers
  body: Uint8Array
}

/** The problems of one answer; empty when it matches the document (or is not an /api/v1 answer). */
export function responseProblems(answer: Answer): string[] {
  const { pathname } = new URL(answer.url)
  if (!pathname.startsWith(`${API_PREFIX}/`) || pathname === `${API_PREFIX}/openapi.json`) return []
  const method = answer.method.toUpperCase()
  // HTTP answers HEAD as GET without the body (RFC 9110 §9.3.2), and so does Express.
  const documented = method === 'HEAD' ? 'GET' : method
  const found = operations.find((op) => op.method === documented && op.pattern.test(pathname))
  const where = `${method} ${pathname} → ${answer.status}`
  if (!found) {
    // A route the API does not have: an error in the documented shape, or nothing to check (HEAD).
    if (answer.status < 400) return [`${where}: not in openapi.json, yet answered ${answer.status}`]
    return method === 'HEAD'
      ? []
      : checkBody(where, answer, { schema: { $ref: '#/components/schemas/Error' } })
  }
  const spec = found.operation.responses[String(answer.status)]
  if (!spec) return [`${where}: status ${answer.status} is not documented for ${found.operation.operationId}`]
  const response = resolve(spec)
  const problems: string[] = []
  for (const [name, headerSpec] of Object.entries(response.headers ?? {})) {
    const header = resolve(headerSpec) as { required?: boolean; schema?: Json }
    const value = answer.headers.get(name)
    if (value === null) {
      if (header.required) problems.push(`${where}: required header ${name} is missing`)
    } else if (!headerOk(value, header.schema)) {
      problems.push(`${where}: header ${name}: ${value} does not match ${JSON.stringify(header.schema)}`)
    }
  }
  const contentType = answer.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase()
  const declared = Object.keys(response.content ?? {})
  if (declared.length === 0) {
    if (answer.body.length > 0 || (contentType && answer.status !== 304))
      problems.push(`${where}: a body (${contentType}) where the document declares none`)
    return problems
  }
  if (!contentType || !declared.includes(contentType)) {
    problems.push(`${where}: content type ${contentType} is not one of ${declared.join(', ')}`)
    return problems
  }
  if (method === 'HEAD') return problems
  const media = response.content?.[contentType] as MediaType
  return [...problems, ...checkBody(where, answer, media)]
}

function checkBody(where: string, answer: Answer, media: MediaType): string[] {
  const schema = media.schema
  if (!schema) return []
  if ((schema as { format?: string }).format === 'binary') {
    return answer.body.length > 0 ? [] : [`${where}: an empty binary body`]
  }
  let body: unknown
  try {
    body = JSON.parse(new TextDecoder().decode(answer.body))
  } catch {
    return [`${where}: the body is not JSON`]
  }
  const validate = validatorFor(schema)
  if (validate(body)) return []
  return [`${where}: body does not match the document: ${ajv.errorsText(validate.errors)}`]
}
