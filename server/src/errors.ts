import { ERROR_STATUS, type ErrorBody, type ErrorCode, type Issue } from '@qrctl/contract'

/**
 * The one error hierarchy of the server. Services throw it through the factories below;
 * `toErrorResponse` is the only place that turns an error into the contract's body.
 */
export class AppError extends Error {
  readonly status: number

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message)
    this.name = 'AppError'
    this.status = ERROR_STATUS[code]
  }
}

export const validation = (issues: Issue[], message = 'The request is not valid') =>
  new AppError('validation_error', message, { issues })

/** One invalid field, as a validation error. */
export const invalidField = (path: string, message: string) => validation([{ path, message }], message)

export const notFound = (resource: string, id?: string) =>
  new AppError('not_found', id ? `No ${resource} with id ${id}` : `No such ${resource}`)

export const conflict = (message: string, details: Record<string, unknown> = {}) =>
  new AppError('conflict', message, details)

export const unauthorized = () =>
  new AppError('unauthorized', 'A valid API key is required: Authorization: Bearer qrk_…')

export const planRequired = () => new AppError('plan_required', 'API access needs an active paid (pro) plan')

export const insufficientScope = (scope: string, needed: string) =>
  new AppError('insufficient_scope', `This key's scope is ${scope}; this request needs ${needed}`)

export const rateLimited = (retryAfter: number) =>
  new AppError('rate_limited', `Too many requests; retry in ${retryAfter} s`, { retryAfter })

/**
 * 503: the database is unreachable or another process holds its lock (DESIGN §10). Nothing
 * was changed; the same request may succeed after `retryAfter` seconds.
 */
export const serviceUnavailable = (
  retryAfter: number,
  message = 'The database is unavailable; retry shortly',
) => new AppError('service_unavailable', message, { retryAfter })

export interface ErrorResponse {
  status: number
  body: ErrorBody
}

/** The contract's `{ error, details }` for any thrown value; unknown errors become a fixed 500. */
export function toErrorResponse(error: unknown, requestId?: string): ErrorResponse {
  if (error instanceof AppError) {
    return {
      status: error.status,
      body: { error: error.code, details: { message: error.message, ...error.details, requestId } },
    }
  }
  return {
    status: 500,
    body: { error: 'internal_error', details: { message: 'Something went wrong on our side', requestId } },
  }
}
