import { API_PREFIX, type Issue } from '@qrctl/contract'
import type { RequestHandler } from 'express'
import type { Ctx } from '../context.js'
import { AppError, invalidField } from '../errors.js'
import type { Gate, RouteScopes } from './gate.js'
import { beginRequest, finishRequest, handedOver } from './request.js'
import './express-types.js'

/**
 * The request's first and last steps (request.ts) as Express middleware: id, timer, security
 * headers, then on finish the metric and the log line under the matched route pattern.
 */
export function requestSteps(ctx: Ctx): RequestHandler {
  return (req, res, next) => {
    const start = handedOver(req)?.start ?? beginRequest(req, res)
    req.id = start.id
    res.on('finish', () => {
      finishRequest(ctx, start, {
        method: req.method,
        route: req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : undefined,
        path: req.path,
        status: res.statusCode,
        accountId: req.auth?.accountId,
      })
    })
    next()
  }
}

/** The gate (gate.ts) for every /api/v1 request, with the scope its contract route declares. */
export function apiGate(gate: Gate, scopes: RouteScopes): RequestHandler {
  return async (req, res, next) => {
    const done = handedOver(req)?.gate
    if (done && 'error' in done) return next(done.error)
    req.auth = done ? done.auth : await gate.pass(req, res, scopes(req.method, `${API_PREFIX}${req.path}`))
    next()
  }
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
