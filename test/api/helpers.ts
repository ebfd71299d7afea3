import type { CreateQrCodeInput, QrCode } from '@qrctl/contract'
import jsQR from 'jsqr'
import { PNG } from 'pngjs'
import { expect } from 'vitest'
import type { TestServer } from '../support/server.js'

/** Response bodies are checked by the assertions that read them, so they are loosely typed here. */
// biome-ignore lint/suspicious/noExplicitAny: see above
export type Json = any

export interface ApiResponse<T = Json> {
  status: number
  headers: Headers
  body: T
  text: string
}

export interface RequestOptions {
  /** Sent as JSON with Content-Type: application/json. */
  body?: unknown
  /** Sent as is (with whatever Content-Type `headers` gives). */
  raw?: string | Uint8Array
  headers?: Record<string, string>
  /** The bearer key; `null` sends no Authorization header. Defaults to the client's key. */
  key?: string | null
}

export interface Api {
  readonly key: string
  request<T = Json>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>
  get<T = Json>(path: string, options?: RequestOptions): Promise<ApiResponse<T>>
  post<T = Json>(path: string, body?: unknown, options?: RequestOptions): Promise<ApiResponse<T>>
  patch<T = Json>(path: string, body?: unknown, options?: RequestOptions): Promise<ApiResponse<T>>
  delete<T = Json>(path: string, options?: RequestOptions): Promise<ApiResponse<T>>
}

/** `path` is under /api/v1 (`/qr-codes`), unless it is an absolute URL. */
export function api(server: { baseUrl: string }, key: string): Api {
  const request = async <T>(method: string, path: string, options: RequestOptions = {}) => {
    const headers: Record<string, string> = { ...options.headers }
    const bearer = options.key === undefined ? key : options.key
    if (bearer !== null) headers.authorization ??= `Bearer ${bearer}`
    let body: string | Uint8Array | undefined
    if (options.raw !== undefined) body = options.raw
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers['content-type'] ??= 'application/json'
    }
    const url = /^https?:/.test(path) ? path : `${server.baseUrl}/api/v1${path}`
    const res = await fetch(url, { method, headers, body })
    const text = await res.text()
    let parsed: unknown = text
    if (res.headers.get('content-type')?.includes('json')) parsed = text ? JSON.parse(text) : undefined
    return { status: res.status, headers: res.headers, body: parsed as T, text }
  }
  return {
    key,
    request,
    get: (path, options) => request('GET', path, options),
    post: (path, body, options) => request('POST', path, { ...options, body }),
    patch: (path, body, options) => request('PATCH', path, { ...options, body }),
    delete: (path, options) => request('DELETE', path, options),
  }
}

/** Asserts the contract's error body: `{ error: code, details: { message, … } }`. */
export function expectError(res: ApiResponse, status: number, code: string): void {
  expect({ status: res.status, error: res.body?.error }).toEqual({ status, error: code })
  expect(typeof res.body.details.message).toBe('string')
}

/** A valid static text code, with overrides. */
export function textCode(overrides: Partial<CreateQrCodeInput> = {}): CreateQrCodeInput {
  return { name: 'text code', contentType: 'text', content: 'hello', ...overrides }
}

/** A valid dynamic URL code, with overrides. */
export function dynamicCode(overrides: Partial<CreateQrCodeInput> = {}): CreateQrCodeInput {
  return {
    name: 'dynamic code',
    contentType: 'url',
    content: 'https://example.com/landing',
    type: 'dynamic',
    ...overrides,
  }
}

/** Creates a code and returns it; fails the test unless the answer is 201. */
export async function createCode(client: Api, input: CreateQrCodeInput = textCode()): Promise<QrCode> {
  const res = await client.post<{ data: QrCode }>('/qr-codes', input)
  expect(res.status, res.text).toBe(201)
  return res.body.data
}

/** Fetches a binary resource (an image) with the client's key. */
export async function fetchBytes(
  client: Api,
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${client.key}`, ...headers } })
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) }
}

/** The text a PNG QR code decodes to, through a real decoder. */
export function decodePng(bytes: Buffer): string | undefined {
  const image = PNG.sync.read(bytes)
  return jsQR.default(new Uint8ClampedArray(image.data), image.width, image.height)?.data
}

/** A UUID that names nothing. */
export const MISSING_ID = '00000000-0000-4000-8000-000000000000'

/** Nothing in an error body may look like a stack trace or SQL. */
export function expectNoLeak(text: string): void {
  expect(text).not.toMatch(
    /\n\s+at |\.[jt]s:\d+|node_modules|SQLITE_|sqlite3|syntax error|violates|relation "|duplicate key|invalid input syntax|kysely/i,
  )
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Server env for suites that are not about rate limits: many requests per key per minute. */
export const UNLIMITED = { RATE_LIMIT_PER_MINUTE: '100000' }

/** A fixed starting time for suites that move the clock. */
export const T0 = '2026-03-01T12:00:00.000Z'

/** Every row of every table, as one JSON text: for "this never reaches the database" checks. */
export async function dumpDatabase(server: { ctx: { db: TestServer['ctx']['db'] } }): Promise<string> {
  const tables = await server.ctx.db.introspection.getTables()
  const dump: Record<string, unknown[]> = {}
  for (const table of tables) {
    // Table names come from the database itself; the cast only satisfies the typed builder.
    dump[table.name] = await server.ctx.db
      .selectFrom(table.name as 'accounts')
      .selectAll()
      .execute()
  }
  return JSON.stringify(dump)
}

/** Polls `check` until it returns true (or `timeoutMs` passes). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 2000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return true
    await sleep(20)
  }
  return check()
}
