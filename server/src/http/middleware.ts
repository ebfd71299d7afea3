import type { ServerResponse } from 'node:http'
import type { Issue } from '@qrctl/contract'
import type { Request, RequestHandler } from 'express'
import type { Ctx } from '../context.js'
import {
  AppError,
  insufficientScope,
  invalidField,
  planRequired,
  rateLimited,
  unauthorized,
} from '../errors.js'
import { requestIdFrom } from '../lib/request-id.js'
import { hasActiveSubscription } from '../modules/accounts/accounts.repository.js'
import { type Auth, authenticate } from '../modules/api-keys/api-keys.service.js'
import type { RateLimitState, RateLimits } from './rate-limit.js'
import './express-types.js'

/** Every response carries X-Request-Id: the caller's, when it is sane, or a new one. */
export const requestId: RequestHandler = (req, res, next) => {
  req.id = requestIdFrom(req.headers['x-request-id'])
  res.setHeader('X-Request-Id', req.id)
  next()
}

/** Anything shaped like an API key, in a path someone pasted one into. */
const KEY_IN_PATH = /qrk_[A-Za-z0-9]*/g

export interface RequestLogLine {
  requestId: string
  method: string | undefined
  route: string
  status: number
  ms: number
  accountId: string | undefined
}

/** The one request log line, from Express and from the paths answered ahead of it. */
export function logRequest(ctx: Ctx, line: RequestLogLine): void {
  ctx.logger.info(line, 'request')
}

/**
 * One log line per request: no key, no address, no query string. Unmatched requests log
 * their path (useful for 404s) with anything key-shaped blanked out.
 */
export function requestLog(ctx: Ctx): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint()
    res.on('finish', () => {
      logRequest(ctx, {
        requestId: req.id,
        method: req.method,
        route: req.route?.path ?? req.path.replace(KEY_IN_PATH, 'qrk_[redacted]'),
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - start) / 1e6,
        accountId: req.auth?.accountId,
      })
    })
    next()
  }
}

export function setRateLimitHeaders(res: ServerResponse, state: RateLimitState): void {
  res.setHeader('X-RateLimit-Limit', String(state.limit))
  res.setHeader('X-RateLimit-Remaining', String(state.remaining))
  res.setHeader('X-RateLimit-Reset', String(state.reset))
}

const BEARER = /^Bearer\s+(\S+)\s*$/i

/** The secret of an `Authorization: Bearer …` header. */
export function bearer(header: string | undefined): string | undefined {
  return header?.match(BEARER)?.[1]
}

/** What the plan gate and the key's scope say of an authenticated request (DESIGN §3), before any work. */
export function accessProblem(auth: Auth, method: string | undefined): AppError | undefined {
  if (!hasActiveSubscription(auth)) return planRequired()
  const isRead = method === 'GET' || method === 'HEAD'
  if (auth.scope === 'read' && !isRead) return insufficientScope('read', 'a write or read_write key')
  if (auth.scope === 'write' && isRead) return insufficientScope('write', 'a read or read_write key')
  return undefined
}

/**
 * Authentication, rate limiting, the plan gate and key scopes, in that order (DESIGN §3, §4).
 * Requests without a valid key are limited per client address, so keys cannot be guessed at speed.
 */
export function apiGate(ctx: Ctx, limits: RateLimits): RequestHandler {
  return async (req, res, next) => {
    const secret = bearer(req.get('authorization'))
    const auth = secret ? await authenticate(ctx, secret) : undefined
    if (!auth) {
      const state = await limits.consume(`ip:${req.ip ?? 'unknown'}`)
      setRateLimitHeaders(res, state)
      return next(state.allowed ? unauthorized() : rateLimited(state.reset))
    }
    req.auth = auth
    const state = await limits.consume(`key:${auth.keyId}`, auth.rateLimitPerMinute ?? limits.defaultLimit)
    setRateLimitHeaders(res, state)
    if (!state.allowed) return next(rateLimited(state.reset))
    next(accessProblem(auth, req.method))
  }
}

/** Key management needs a read_write key (DESIGN §3). */
export function requireReadWrite(req: Request): void {
  if (req.auth.scope !== 'read_write') throw insufficientScope(req.auth.scope, 'a read_write key')
}

/** A body must be JSON (DESIGN §10: 415 otherwise). */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  const hasBody =
    req.headers['transfer-encoding'] !== undefined ||
    (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0')
  if (hasBody && !req.is(['application/json', 'application/*+json'])) {
    return next(
      new AppError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json', {
        contentType: req.get('content-type') ?? null,
      }),
    )
  }
  next()
}

/** Deeper than any request of the API (a batch item's style is 4 levels down). */
export const MAX_JSON_DEPTH = 32

/**
 * What the schemas cannot catch in a parsed body: nesting so deep that walking it (hashing it
 * for idempotency, logging it) would overflow the stack, and NUL characters, which PostgreSQL
 * cannot store (SQLite can: refusing them everywhere keeps the dialects alike). Iterative, so
 * a hostile body cannot overflow the check itself.
 */
export function jsonBodyProblem(body: unknown): Issue | undefined {
  const nul = 'Text must not contain NUL (\\u0000) characters'
  const stack: { value: unknown; path: string[] }[] = [{ value: body, path: [] }]
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { value, path } = item
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return { path: path.join('.'), message: nul }
      continue
    }
    if (typeof value !== 'object' || value === null) continue
    if (path.length >= MAX_JSON_DEPTH) {
      return { path: path.join('.'), message: `JSON may nest at most ${MAX_JSON_DEPTH} levels deep` }
    }
    // Pushed in reverse, so the first offending field in document order is the one named.
    for (const [key, child] of Object.entries(value).reverse()) {
      if (key.includes('\u0000')) return { path: [...path, key].join('.'), message: nul }
      stack.push({ value: child, path: [...path, key] })
    }
  }
  return undefined
}

/** Runs after the JSON parser: a body with a problem above is a 400 before anything else sees it. */
export const checkJsonBody: RequestHandler = (req, _res, next) => {
  const problem = jsonBodyProblem(req.body)
  if (problem) return next(invalidField(problem.path, problem.message))
  next()
}
