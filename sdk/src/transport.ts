import type { ApiFetcherArgs } from '@ts-rest/core'
import { type DefaultFetch, loadDefaultFetch, platformUserAgent } from '#runtime'
import {
  errorFromResponse,
  parseRetryAfter,
  type QrctlApiError,
  QrctlConnectionError,
  type QrctlError,
} from './errors.js'
import type { FetchFn, RateLimit, RequestOptions, ResolvedOptions, ResponseInfo } from './options.js'
import { isRetryableStatus, MAX_RETRY_AFTER_MS, retryDelayMs, sleep } from './retry.js'
import { SDK_VERSION } from './version.js'

/** What ts-rest hands the fetcher, plus the per-call options the resources pass along. */
export type FetcherArgs = ApiFetcherArgs & { requestOptions?: RequestOptions | undefined }
export interface FetcherResult {
  status: number
  body: unknown
  headers: Headers
}

type Attempt =
  | { ok: true; result: FetcherResult }
  | { ok: false; error: QrctlError; retryable: boolean; retryAfter: number | undefined }

// Browsers send their own User-Agent and ignore ours.
const USER_AGENT = platformUserAgent ? `qrctl-sdk/${SDK_VERSION} ${platformUserAgent}` : undefined

/**
 * A random UUID v4 for Idempotency-Keys. `crypto.randomUUID` exists on Node and in browsers'
 * secure contexts only; a dashboard on plain http at a LAN address is not one.
 */
export function randomId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID()
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/**
 * Bodies by content type: JSON parsed, text as a string (a proxy's HTML error page), anything
 * else, such as an image, as bytes. ts-rest's own fetcher would make that a Blob.
 */
async function readBody(response: Response): Promise<unknown> {
  const type = response.headers.get('content-type') ?? ''
  if (type.includes('json')) {
    const text = await response.text()
    if (text === '') return undefined
    try {
      return JSON.parse(text)
    } catch {
      return text
    }
  }
  // CSV exports can be large: handed over as a stream, read as the caller consumes it.
  if (type.startsWith('text/csv') && response.ok && response.body) return response.body
  if (type.startsWith('text/')) return response.text()
  return new Uint8Array(await response.arrayBuffer())
}

function describeNetworkError(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = cause.cause
    if (inner instanceof Error) return 'code' in inner && inner.code ? String(inner.code) : inner.message
    return cause.message
  }
  return String(cause)
}

function readRateLimit(headers: Headers): RateLimit | undefined {
  const limit = Number(headers.get('x-ratelimit-limit') ?? Number.NaN)
  const remaining = Number(headers.get('x-ratelimit-remaining') ?? Number.NaN)
  const reset = Number(headers.get('x-ratelimit-reset') ?? Number.NaN)
  if (![limit, remaining, reset].every(Number.isFinite)) return undefined
  return { limit, remaining, reset, resetAt: new Date(Date.now() + reset * 1000) }
}

/**
 * A 409 saying a request with our own Idempotency-Key is still running on the server: an
 * earlier attempt of this call whose answer was lost or timed out, or, with a key the caller
 * chose, the same call from an earlier run or another process (so even a first attempt can
 * meet it). Once that request finishes, the server replays its answer, so waiting is worth
 * it. A `mismatch` (the key was used with another request) and every other 409 are final.
 */
function isKeyInProgress(error: QrctlApiError, headers: Record<string, string>): boolean {
  const key = headers['idempotency-key']
  return (
    error.status === 409 &&
    error.details.reason === 'in_progress' &&
    key !== undefined &&
    error.details.idempotencyKey === key
  )
}

/**
 * The HTTP layer under the ts-rest client: auth, Idempotency-Key, per-attempt timeout,
 * retries with backoff, rate-limit bookkeeping and error mapping. Only 2xx answers come back;
 * everything else is thrown as a `QrctlError`.
 */
export class Transport {
  /** Rate-limit headers of the latest answer that carried them. */
  lastRateLimit: RateLimit | undefined
  /** Status, request id, replay flag and headers of the latest answer. */
  lastResponse: ResponseInfo | undefined
  readonly #options: ResolvedOptions
  /** The SDK's own fetch (on Node undici with its agent), once the first request has loaded it. */
  #defaultFetch: Promise<DefaultFetch> | undefined

  constructor(options: ResolvedOptions) {
    this.#options = options
  }

  /** The `api` of the ts-rest client. */
  readonly fetcher = async (request: FetcherArgs): Promise<FetcherResult> => {
    const args = { ...request, path: repeatedArrayParams(request.path) }
    const options = args.requestOptions ?? {}
    const maxRetries = options.maxRetries ?? this.#options.maxRetries
    const headers = this.#headers(args, options, maxRetries)
    // Outside the attempts: a failure to load undici is not a network error to retry.
    const fetch = await this.#fetchFn()
    for (let retry = 0; ; retry++) {
      const attempt = await this.#attempt(fetch, args, headers, options, retry)
      if (attempt.ok) return attempt.result
      const delayMs = retryDelayMs(retry, attempt.retryAfter)
      // A Retry-After beyond the cap is an instruction to come back much later, not a blip.
      const tooLong = (attempt.retryAfter ?? 0) * 1000 > MAX_RETRY_AFTER_MS
      if (!attempt.retryable || retry >= maxRetries || tooLong) throw attempt.error
      this.#options.onRetry?.({
        method: args.method,
        url: args.path,
        retry: retry + 1,
        delayMs,
        error: attempt.error,
      })
      await sleep(delayMs, options.signal)
    }
  }

  /** Closes the keep-alive connections of the SDK's own agent. */
  async close(): Promise<void> {
    if (this.#defaultFetch) await (await this.#defaultFetch).close()
  }

  /**
   * The caller's `fetch`; in session mode the page's own, which sends its cookie; else the
   * SDK's own once the first request has loaded it.
   */
  async #fetchFn(): Promise<FetchFn> {
    if (this.#options.fetch) return this.#options.fetch
    if ('csrfToken' in this.#options.credentials) return (url, init) => globalThis.fetch(url, init)
    this.#defaultFetch ??= loadDefaultFetch()
    return (await this.#defaultFetch).fetch
  }

  #headers(args: FetcherArgs, options: RequestOptions, maxRetries: number): Record<string, string> {
    const { credentials } = this.#options
    const headers: Record<string, string> = { ...args.headers }
    // A session's cookie counts only beside its token (DESIGN §19), which a page of another
    // site cannot read; the key itself never reaches a browser.
    if ('csrfToken' in credentials) headers['x-csrf-token'] = credentials.csrfToken
    else headers.authorization = `Bearer ${credentials.apiKey}`
    if (USER_AGENT) headers['user-agent'] = USER_AGENT
    // Every POST gets one key per logical call, reused by its retries, so that a retry after
    // a lost answer returns the first answer instead of creating twice. Without retries
    // nothing can repeat, so no key is invented (one given by the caller is still sent).
    if (args.method === 'POST' && !headers['idempotency-key']) {
      const key = options.idempotencyKey ?? (maxRetries > 0 ? randomId() : undefined)
      if (key) headers['idempotency-key'] = key
    }
    return headers
  }

  async #attempt(
    fetch: FetchFn,
    args: FetcherArgs,
    headers: Record<string, string>,
    options: RequestOptions,
    retry: number,
  ): Promise<Attempt> {
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs
    const timeout = AbortSignal.timeout(timeoutMs)
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout
    const started = performance.now()
    let response: Response
    let body: unknown
    try {
      response = await fetch(args.path, {
        method: args.method,
        headers,
        body: typeof args.body === 'string' ? args.body : undefined,
        signal,
        ...('csrfToken' in this.#options.credentials && { credentials: 'same-origin' }),
      })
      body = await readBody(response)
    } catch (cause) {
      if (options.signal?.aborted) throw options.signal.reason
      const origin = new URL(args.path).origin
      // Connection failures are retried for every method: GETs are safe, POSTs carry an
      // Idempotency-Key, and PATCH/DELETE set state rather than add to it.
      const error = timeout.aborted
        ? new QrctlConnectionError(`No answer from ${origin} within ${timeoutMs} ms`, 'timeout', { cause })
        : new QrctlConnectionError(`Could not reach ${origin}: ${describeNetworkError(cause)}`, 'network', {
            cause,
          })
      return { ok: false, error, retryable: true, retryAfter: undefined }
    }
    this.#observe(args, response, retry, started)
    if (response.status < 300 || response.status === 304) {
      return { ok: true, result: { status: response.status, body, headers: response.headers } }
    }
    const error = errorFromResponse(response.status, body, response.headers)
    const retryAfter =
      'retryAfter' in error && typeof error.retryAfter === 'number'
        ? error.retryAfter
        : (parseRetryAfter(response.headers.get('retry-after')) ??
          (response.status === 429 ? this.lastRateLimit?.reset : undefined))
    const retryable = isRetryableStatus(response.status) || isKeyInProgress(error, headers)
    return { ok: false, error, retryable, retryAfter }
  }

  #observe(args: FetcherArgs, response: Response, retry: number, started: number): void {
    const rateLimit = readRateLimit(response.headers)
    if (rateLimit) this.lastRateLimit = rateLimit
    const requestId = response.headers.get('x-request-id') ?? undefined
    this.lastResponse = {
      status: response.status,
      requestId,
      replayed: response.headers.get('idempotent-replayed') === 'true',
      headers: response.headers,
    }
    this.#options.onResponse?.({
      method: args.method,
      url: args.path,
      status: response.status,
      headers: response.headers,
      requestId,
      attempt: retry,
      durationMs: Math.round(performance.now() - started),
    })
  }
}

/**
 * ts-rest writes an array in a query as `tag[0]=a&tag[1]=b`; the API takes a repeated parameter
 * (`tag=a&tag=b`, DESIGN §17), as most HTTP APIs do. Other parameters pass unchanged.
 */
export function repeatedArrayParams(path: string): string {
  const question = path.indexOf('?')
  if (question === -1 || !/%5B\d+%5D=|\[\d+\]=/.test(path)) return path
  const params = new URLSearchParams(path.slice(question + 1))
  const repeated = new URLSearchParams()
  for (const [key, value] of params) repeated.append(key.replace(/\[\d+\]$/, ''), value)
  return `${path.slice(0, question)}?${repeated.toString().replaceAll('+', '%20')}`
}
