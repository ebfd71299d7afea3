import { type DecodeCheck, ERROR_STATUS, type ErrorBody, type ErrorCode, type Issue } from '@qrctl/contract'

/**
 * The `code` of an API error: one of the contract's error codes, or `http_error` for an answer
 * that is not a qrctl error body (a proxy's page, an empty 4xx) or carries a code this SDK
 * does not know.
 */
export type ApiErrorCode = ErrorCode | 'http_error'

/** What the API said about a failed request (`details` of the error body). */
export type ErrorDetails = ErrorBody['details']

/**
 * Base class of every error the SDK throws for a request. Branch on the subclasses.
 * @example if (error instanceof QrctlError) console.error(error.message)
 */
export class QrctlError extends Error {
  override name = 'QrctlError'
}

/**
 * The request never got an HTTP answer: DNS, refused or dropped connection, or the
 * per-attempt timeout. Thrown after the retries are used up.
 * @example if (error instanceof QrctlConnectionError && error.reason === 'timeout') …
 */
export class QrctlConnectionError extends QrctlError {
  override name = 'QrctlConnectionError'
  /** `timeout` when `timeoutMs` passed without an answer, else `network`. */
  readonly reason: 'network' | 'timeout'

  constructor(message: string, reason: 'network' | 'timeout', options?: { cause?: unknown }) {
    super(message, options)
    this.reason = reason
  }
}

export interface ApiErrorInit {
  status: number
  code: ApiErrorCode
  details: ErrorDetails
  requestId: string | undefined
  headers: Headers
}

/**
 * The API answered with an error status. `code` is the stable `error` string of the body
 * (`validation_error`, `not_found` …), `message` its `details.message`.
 * @example if (error instanceof QrctlApiError) console.error(error.status, error.code, error.requestId)
 */
export class QrctlApiError extends QrctlError {
  override name = 'QrctlApiError'
  /** The HTTP status, e.g. 404. */
  readonly status: number
  /** The stable error code of the body, e.g. `not_found`; `http_error` when there is none. */
  readonly code: ApiErrorCode
  /** The whole `details` object of the body (`message`, and `issues`, `retryAfter` … by code). */
  readonly details: ErrorDetails
  /** The `X-Request-Id` of the answer: quote it when you contact support. */
  readonly requestId: string | undefined
  /** All headers of the answer. */
  readonly headers: Headers

  constructor(init: ApiErrorInit) {
    super(init.details.message)
    this.status = init.status
    this.code = init.code
    this.details = init.details
    this.requestId = init.requestId
    this.headers = init.headers
  }
}

/** 400: the body, query or path failed validation; `issues` says where and why. */
export class QrctlValidationError extends QrctlApiError {
  override name = 'QrctlValidationError'
  /** One entry per problem, `path` dotted (`codes.3.targetUrl`). Empty for `invalid_json`. */
  get issues(): Issue[] {
    return this.details.issues ?? []
  }
}

/**
 * 400 `unscannable`: a styled code failed the decode check and was not saved (DESIGN §13).
 * A `QrctlValidationError` too, so code that handles bad input handles this.
 * @example catch (e) { if (e instanceof QrctlUnscannableError) console.log(e.checks.filter((c) => !c.ok)) }
 */
export class QrctlUnscannableError extends QrctlValidationError {
  override name = 'QrctlUnscannableError'
  /** Each render of the check: its size in px, the decoder, and whether it read the code. */
  get checks(): DecodeCheck[] {
    return this.details.checks ?? []
  }
}

/** 401: the API key is missing, malformed, unknown or revoked. */
export class QrctlAuthenticationError extends QrctlApiError {
  override name = 'QrctlAuthenticationError'
}

/** 403: the account has no active paid plan (`plan_required`) or the key's scope is too narrow (`insufficient_scope`). */
export class QrctlPermissionError extends QrctlApiError {
  override name = 'QrctlPermissionError'
}

/** 404: no such resource in your account. */
export class QrctlNotFoundError extends QrctlApiError {
  override name = 'QrctlNotFoundError'
}

/** 409: a conflict, such as a showcase slug that is taken. */
export class QrctlConflictError extends QrctlApiError {
  override name = 'QrctlConflictError'
}

/** 429: over the per-minute request limit; thrown once the SDK's retries are used up. */
export class QrctlRateLimitError extends QrctlApiError {
  override name = 'QrctlRateLimitError'
  /** Seconds to wait before the next request, from `details.retryAfter` or `Retry-After`. */
  readonly retryAfter: number | undefined

  constructor(init: ApiErrorInit & { retryAfter: number | undefined }) {
    super(init)
    this.retryAfter = init.retryAfter
  }
}

/** 5xx: the service failed; thrown once the SDK's retries are used up. */
export class QrctlServerError extends QrctlApiError {
  override name = 'QrctlServerError'
}

/** Reads `{ error, details }` leniently: a proxy's HTML page or an empty body still gives a useful error. */
function readErrorBody(status: number, body: unknown): { code: ApiErrorCode; details: ErrorDetails } {
  const fallback: ApiErrorCode = status >= 500 ? 'internal_error' : 'http_error'
  if (typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'string') {
    const details =
      'details' in body && typeof body.details === 'object' && body.details !== null ? body.details : {}
    const message =
      'message' in details && typeof details.message === 'string' ? details.message : `HTTP ${status}`
    const code = isErrorCode(body.error) ? body.error : fallback
    return { code, details: { ...details, message } as ErrorDetails }
  }
  return { code: fallback, details: { message: `HTTP ${status}` } }
}

function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUS, value)
}

/** Seconds from a `Retry-After` header: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds)
  const date = Date.parse(value)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, Math.ceil((date - now) / 1000))
}

/** Maps an error answer to its class. */
export function errorFromResponse(status: number, body: unknown, headers: Headers): QrctlApiError {
  const { code, details } = readErrorBody(status, body)
  const init: ApiErrorInit = {
    status,
    code,
    details,
    requestId: headers.get('x-request-id') ?? undefined,
    headers,
  }
  if (status === 400 && code === 'unscannable') return new QrctlUnscannableError(init)
  if (status === 400) return new QrctlValidationError(init)
  if (status === 401) return new QrctlAuthenticationError(init)
  if (status === 403) return new QrctlPermissionError(init)
  if (status === 404) return new QrctlNotFoundError(init)
  if (status === 409) return new QrctlConflictError(init)
  if (status === 429) {
    const retryAfter = details.retryAfter ?? parseRetryAfter(headers.get('retry-after'))
    return new QrctlRateLimitError({ ...init, retryAfter })
  }
  if (status >= 500) return new QrctlServerError(init)
  return new QrctlApiError(init)
}
