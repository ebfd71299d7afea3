import type { ServerResponse } from 'node:http'
import type { Issue } from '@qrctl/contract'
import { toIssues } from '@qrctl/contract'
import type { RequestValidationError } from '@ts-rest/express'
import type { ErrorRequestHandler, NextFunction, Request, Response } from 'express'
import type { z } from 'zod'
import type { Ctx } from '../context.js'
import { fromDatabaseError } from '../db/errors.js'
import { AppError, toErrorResponse, validation } from '../errors.js'

/** ts-rest's request validation failure, as our validation_error with every issue listed. */
export function onRequestValidationError(
  error: RequestValidationError,
  _req: unknown,
  _res: unknown,
  next: NextFunction,
) {
  const parts: [string, z.ZodError | null][] = [
    ['path', error.pathParams],
    ['header', error.headers],
    ['query', error.query],
    ['body', error.body],
  ]
  const issues: Issue[] = parts.flatMap(([, zodError]) => (zodError ? toIssues(zodError) : []))
  const where = parts.filter(([, e]) => e).map(([name]) => name)
  next(
    validation(
      issues,
      `Invalid request ${where.join(' and ')}: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`,
    ),
  )
}

/** Content encodings the JSON parser inflates (Node 20's zlib); any other answers 415. */
const ACCEPTED_ENCODINGS = 'gzip, deflate, br or identity'

/**
 * Errors raised by the JSON body parser (they carry a `type`). A body that does not inflate
 * as its Content-Encoding says reaches here as zlib's own error (no `type`, status 400): the
 * client's bytes are wrong, so it is a 400 `invalid_body`, never a 500 (issue #12).
 */
function fromBodyParser(error: unknown, req: Request): AppError | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const encoding = req.headers['content-encoding']
  if (!('type' in error)) {
    const isClientError = 'status' in error && error.status === 400
    if (!isClientError || encoding === undefined || encoding.toLowerCase() === 'identity') return undefined
    return new AppError(
      'invalid_body',
      `The body cannot be decoded as Content-Encoding: ${encoding} says; send it ${encoding}-compressed or without that header`,
      { contentEncoding: encoding },
    )
  }
  switch ((error as { type: unknown }).type) {
    case 'entity.too.large':
      return new AppError('payload_too_large', 'The body is larger than 1 MiB', { limitBytes: 1_048_576 })
    case 'entity.parse.failed':
      return new AppError('invalid_json', 'The body is not valid JSON')
    case 'encoding.unsupported':
      return new AppError(
        'unsupported_media_type',
        `Content-Encoding ${encoding ?? ''} is not accepted; send the body ${ACCEPTED_ENCODINGS}`,
        { contentEncoding: encoding ?? null },
      )
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', 'Send the body as UTF-8 JSON')
    case 'request.aborted':
    case 'request.size.invalid':
      return new AppError('validation_error', 'The body was incomplete')
    default:
      return undefined
  }
}

/** The router's failure to percent-decode a path segment (`/qr-codes/%E0%A4%A`): the client's URL is broken. */
function fromBadUrl(error: unknown): AppError | undefined {
  if (!(error instanceof URIError)) return undefined
  return validation(
    [{ path: '', message: 'The URL is not validly percent-encoded' }],
    'The URL is not validly percent-encoded',
  )
}

export const apiNotFound = (req: Request, _res: Response, next: NextFunction) =>
  next(new AppError('not_found', `No route ${req.method} ${req.originalUrl.split('?')[0]}`))

/** An error's status, body and headers; a 5xx is logged here with the request id, never shown. */
function errorAnswer(ctx: Ctx, thrown: unknown, requestId: string) {
  const fromDatabase = fromDatabaseError(thrown)
  const error = fromDatabase ?? thrown
  const { status, body } = toErrorResponse(error, requestId)
  if (fromDatabase) ctx.logger.warn({ err: thrown, requestId }, 'database unavailable')
  // A 503 of the server's own choosing (too many exports at once): expected, not a fault.
  else if (status === 503) ctx.logger.info({ requestId, reason: body.details.message }, 'service unavailable')
  else if (status >= 500) ctx.logger.error({ err: error, requestId }, 'unhandled error')
  const headers: Record<string, string> = {}
  if (error instanceof AppError && (error.code === 'rate_limited' || error.code === 'service_unavailable')) {
    headers['Retry-After'] = String(error.details.retryAfter)
  }
  // RFC 9110: a 401 names the scheme that would work.
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer realm="qrctl"'
  return { status, body, headers }
}

/**
 * The one place errors become responses. Through `res.json`, so what wraps it (idempotency
 * keeps 4xx answers) sees errors too.
 */
export function errorHandler(ctx: Ctx): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const known = fromBodyParser(error, req) ?? fromBadUrl(error) ?? error
    const { status, body, headers } = errorAnswer(ctx, known, req.id)
    // A failure after the answer started can only cut the connection (as Express itself does),
    // so the client sees a broken answer rather than a complete-looking truncated one.
    if (res.headersSent) return void req.socket.destroy()
    res.set(headers).status(status).json(body)
  }
}

/** `errorHandler` for the paths answered ahead of Express, on the bare response. Returns the status. */
export function writeError(ctx: Ctx, res: ServerResponse, error: unknown, requestId: string): number {
  const { status, body, headers } = errorAnswer(ctx, error, requestId)
  if (res.headersSent) {
    res.destroy()
    return status
  }
  const json = JSON.stringify(body)
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(json)),
  })
  res.end(json)
  return status
}
