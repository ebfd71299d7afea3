import { API_KEY_PREFIX } from '@qrctl/contract'
import { BaseUrlError, DEFAULT_BASE_URL, normalizeBaseUrl } from './base-url.js'
import type { QrctlError } from './errors.js'

/** The subset of `fetch` the SDK calls. `globalThis.fetch` fits, and so does a wrapper around it. */
export type FetchFn = (url: string, init: RequestInit) => Promise<Response>

/** One HTTP answer, reported to `onResponse` (every attempt, retried or not). */
export interface ResponseEvent {
  method: string
  url: string
  status: number
  headers: Headers
  requestId: string | undefined
  /** 0 for the first attempt, 1 for the first retry … */
  attempt: number
  durationMs: number
}

/** Reported to `onRetry` before the SDK waits and tries again. */
export interface RetryEvent {
  method: string
  url: string
  /** The retry about to happen: 1 for the first. */
  retry: number
  delayMs: number
  /** What went wrong with the previous attempt. */
  error: QrctlError
}

/** The rate-limit headers of the latest answer. */
export interface RateLimit {
  /** Requests allowed per window (`X-RateLimit-Limit`). */
  limit: number
  /** Requests left in the current window (`X-RateLimit-Remaining`). */
  remaining: number
  /** Seconds until the window resets, as of the answer (`X-RateLimit-Reset`). */
  reset: number
  /** When the window resets. */
  resetAt: Date
}

/** The latest HTTP answer, as `qrctl.lastResponse` holds it. */
export interface ResponseInfo {
  /** The HTTP status, error answers included, e.g. 201 or 409. */
  status: number
  /** The `X-Request-Id` of the answer: quote it when you contact support. */
  requestId: string | undefined
  /**
   * True when the server answered a POST from its Idempotency-Key store (`Idempotent-Replayed:
   * true`): the request had been made before with this key, and nothing was created again.
   */
  replayed: boolean
  /** All headers of the answer. */
  headers: Headers
}

/** Everything but the credentials: see `QrctlOptions`. */
export interface QrctlBaseOptions {
  /**
   * Server root (a trailing `/api/v1` is dropped). Default `http://localhost:3000`, or in
   * session mode the page's own origin (`location.origin`).
   */
  baseUrl?: string
  /** Time allowed for each attempt, answer body included. Default 30000. */
  timeoutMs?: number
  /** Retries after network errors, timeouts, 429 and 5xx. Default 2; 0 turns retries off. */
  maxRetries?: number
  /**
   * A `fetch` to use instead of the SDK's own (undici with a keep-alive agent on Node; the
   * page's `fetch` in a browser and in session mode).
   */
  fetch?: FetchFn
  /** Called with every HTTP answer, including those that are then retried. */
  onResponse?: (event: ResponseEvent) => void
  /** Called before each retry. */
  onRetry?: (event: RetryEvent) => void
}

/**
 * The options of a client that authenticates with an API key (servers and scripts): sent as
 * `Authorization: Bearer …`.
 * @example new Qrctl({ apiKey: process.env.QRCTL_API_KEY! })
 */
export interface QrctlOptions extends QrctlBaseOptions {
  /** Your API key, `qrk_…`. */
  apiKey: string
  /** Only in session mode (`QrctlSessionOptions`). */
  csrfToken?: undefined
}

/**
 * Session mode, for a page served by the qrctl server to a signed-in person (the dashboard):
 * the session cookie goes along by itself (`credentials: 'same-origin'`), the key never reaches
 * the browser, and every request carries the page's token as `X-CSRF-Token`.
 * @example new Qrctl({ baseUrl: location.origin, csrfToken: document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')!.content })
 */
export interface QrctlSessionOptions extends QrctlBaseOptions {
  /** The token of the page's `<meta name="csrf-token">`. */
  csrfToken: string
  /** Never in a browser: session mode has no key. */
  apiKey?: undefined
}

/** Per-call settings, accepted as the last argument of every method. */
export interface RequestOptions {
  /** For POSTs: the Idempotency-Key to send instead of a random one (reuse it to resume safely). */
  idempotencyKey?: string
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number
  /** Aborts the call, retries and waits included; the promise rejects with the signal's reason. */
  signal?: AbortSignal
}

/** How requests authenticate: with a key, or with the browser's session cookie and its token. */
export type Credentials = { apiKey: string } | { csrfToken: string }

export interface ResolvedOptions {
  credentials: Credentials
  baseUrl: string
  timeoutMs: number
  maxRetries: number
  fetch: FetchFn | undefined
  onResponse: ((event: ResponseEvent) => void) | undefined
  onRetry: ((event: RetryEvent) => void) | undefined
}

export { DEFAULT_BASE_URL } from './base-url.js'
export const DEFAULT_TIMEOUT_MS = 30_000
export const DEFAULT_MAX_RETRIES = 2

const KNOWN_OPTIONS = [
  'apiKey',
  'csrfToken',
  'baseUrl',
  'timeoutMs',
  'maxRetries',
  'fetch',
  'onResponse',
  'onRetry',
] as const

function fail(message: string): never {
  throw new TypeError(`Qrctl: ${message}`)
}

function unknownOption(key: string): never {
  const meant = KNOWN_OPTIONS.find((name) => name.toLowerCase() === key.replace(/[_-]/g, '').toLowerCase())
  fail(`unknown option '${key}'${meant ? ` (did you mean '${meant}'?)` : ''}`)
}

function checkApiKey(apiKey: unknown): string {
  if (typeof apiKey !== 'string' || apiKey === '') {
    fail('`apiKey` is required: pass the key you created in the dashboard or with `qrctl key create`')
  }
  if (!apiKey.startsWith(API_KEY_PREFIX)) {
    fail(`\`apiKey\` must start with '${API_KEY_PREFIX}'; this looks like something else`)
  }
  return apiKey
}

function checkCsrfToken(token: unknown): string {
  // It travels as a header value: printable ASCII without spaces, as the server issues it.
  if (typeof token !== 'string' || !/^[\x21-\x7e]+$/.test(token)) {
    fail('`csrfToken` must be the page\'s token: the content of <meta name="csrf-token">')
  }
  return token
}

/** Exactly one of `apiKey` and `csrfToken`. */
function checkCredentials(options: { apiKey?: unknown; csrfToken?: unknown }): Credentials {
  const hasKey = options.apiKey !== undefined
  const hasToken = options.csrfToken !== undefined
  if (hasKey && hasToken) {
    fail(
      'pass `apiKey` (servers and scripts) or `csrfToken` (a signed-in page of the qrctl server), not both',
    )
  }
  if (hasToken) return { csrfToken: checkCsrfToken(options.csrfToken) }
  if (!hasKey) {
    fail(
      '`apiKey` is required: pass the key you created in the dashboard or with `qrctl key create` (or, on a signed-in page of the qrctl server, its `csrfToken`)',
    )
  }
  return { apiKey: checkApiKey(options.apiKey) }
}

/** In session mode the page's own origin, where the session cookie belongs. */
function defaultBaseUrl(credentials: Credentials): string {
  const origin = (globalThis as { location?: { origin?: unknown } }).location?.origin
  if ('csrfToken' in credentials && typeof origin === 'string' && /^https?:/.test(origin)) return origin
  return DEFAULT_BASE_URL
}

function checkBaseUrl(value: unknown, fallback: string): string {
  if (value === undefined) return fallback
  if (typeof value !== 'string') fail('`baseUrl` must be a string such as https://qr.example.com')
  try {
    return normalizeBaseUrl(value)
  } catch (error) {
    if (!(error instanceof BaseUrlError)) throw error
    return fail(`\`baseUrl\`: ${error.message}`)
  }
}

function checkInteger(name: string, value: unknown, fallback: number, min: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    fail(`\`${name}\` must be a whole number of at least ${min}`)
  }
  return value
}

function checkFunction<T>(name: string, value: unknown): T | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'function') fail(`\`${name}\` must be a function`)
  return value as T
}

/** Checks the constructor's options; anything unknown or malformed throws a TypeError at once. */
export function resolveOptions(options: QrctlOptions | QrctlSessionOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) fail('pass an options object: new Qrctl({ apiKey })')
  for (const key of Object.keys(options)) {
    if (!(KNOWN_OPTIONS as readonly string[]).includes(key)) unknownOption(key)
  }
  const credentials = checkCredentials(options)
  return {
    credentials,
    baseUrl: checkBaseUrl(options.baseUrl, defaultBaseUrl(credentials)),
    timeoutMs: checkInteger('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS, 1),
    maxRetries: checkInteger('maxRetries', options.maxRetries, DEFAULT_MAX_RETRIES, 0),
    fetch: checkFunction<FetchFn>('fetch', options.fetch),
    onResponse: checkFunction('onResponse', options.onResponse),
    onRetry: checkFunction('onRetry', options.onRetry),
  }
}

/** Checks per-call options the same way (they come from untyped JS too). */
export function checkRequestOptions(options: RequestOptions | undefined): RequestOptions {
  if (options === undefined) return {}
  if (typeof options !== 'object' || options === null) fail('request options must be an object')
  const known = ['idempotencyKey', 'timeoutMs', 'maxRetries', 'signal']
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) fail(`unknown request option '${key}'`)
  }
  if (options.timeoutMs !== undefined) checkInteger('timeoutMs', options.timeoutMs, 0, 1)
  if (options.maxRetries !== undefined) checkInteger('maxRetries', options.maxRetries, 0, 0)
  const key = options.idempotencyKey
  if (key !== undefined && (typeof key !== 'string' || key.length < 1 || key.length > 255)) {
    fail('`idempotencyKey` must be a string of 1–255 characters')
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
    fail('`signal` must be an AbortSignal')
  return options
}
