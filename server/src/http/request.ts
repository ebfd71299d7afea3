import type { IncomingMessage, ServerResponse } from 'node:http'
import { API_PREFIX } from '@qrctl/contract'
import type { Ctx } from '../context.js'
import { histogramSeries } from '../lib/metrics.js'
import { requestIdFrom } from '../lib/request-id.js'
import type { Auth } from '../modules/api-keys/api-keys.service.js'
import { httpDuration } from './metrics.js'

/**
 * The first and last steps of every request, on the bare node:http objects, so Express's
 * middleware and the fast paths (redirect-path.ts, image-path.ts) run the same code.
 */
export interface RequestStart {
  /** X-Request-Id: the caller's, when it is sane, or a new one. */
  id: string
  /** `performance.now()` when the request began. */
  started: number
  /** Under `/api/v1`: its answers are never cached (see `withRequestHeaders`). */
  api: boolean
}

/** Anything shaped like an API key, in a path someone pasted one into. */
const KEY_IN_PATH = /qrk_[A-Za-z0-9]*/g

/**
 * Begins a request (its id and its timer) without touching the response: for a path that
 * writes its whole answer in one `writeHead`, with `withRequestHeaders` (the redirect path).
 * Node's `writeHead` takes its object as it is only while no header has been set before;
 * after a `setHeader` it sets each of them again, one call each.
 */
export function startRequest(req: IncomingMessage): RequestStart {
  return {
    id: requestIdFrom(req.headers['x-request-id']),
    started: performance.now(),
    api: req.url?.startsWith(API_PREFIX) === true,
  }
}

/**
 * Adds the headers every answer of the request's kind carries to `headers`, and gives it back.
 * Every `/api/v1` answer (images, errors, 401s, 404s, 429s) is `nosniff` and `no-store`
 * (DESIGN §10): a key's secret or an account's data never sits in a shared cache. Routes
 * outside the API set their own caching (short links, pages, stylesheets). Properties are
 * added to the caller's object, not spread into a new one: a spread on every redirect cost
 * more than the `setHeader` calls it replaced.
 */
export function withRequestHeaders<T extends Record<string, string | number>>(
  start: RequestStart,
  headers: T,
): T {
  const all = headers as Record<string, string | number>
  all['X-Request-Id'] = start.id
  all['X-Content-Type-Options'] = 'nosniff'
  if (start.api) all['Cache-Control'] = 'no-store'
  return headers
}

/** `startRequest`, with the request's headers set on the response now: for Express and the image path. */
export function beginRequest(req: IncomingMessage, res: ServerResponse): RequestStart {
  const start = startRequest(req)
  const headers = withRequestHeaders<Record<string, string>>(start, {})
  for (const name in headers) res.setHeader(name, headers[name] as string)
  return start
}

export interface RequestEnd {
  method: string | undefined
  /** The matched route pattern (`/api/v1/qr-codes/:id`); undefined when no route matched. */
  route: string | undefined
  /** The raw path, logged (key-shaped parts blanked) when no route matched: useful for 404s. */
  path?: string
  status: number
  accountId?: string | undefined
  /** The redirect path's outcome (`counted`, `gone` …). */
  outcome?: string
}

/**
 * The duration series of a route, status and method, bound once rather than per request, and
 * found without building a key (maps by route, then status, then method).
 */
const series = new Map<string, Map<number, Map<string, (seconds: number) => void>>>()
function durationSeries(method: string, route: string, status: number) {
  let byStatus = series.get(route)
  if (!byStatus) {
    byStatus = new Map()
    series.set(route, byStatus)
  }
  let byMethod = byStatus.get(status)
  if (!byMethod) {
    byMethod = new Map()
    byStatus.set(status, byMethod)
  }
  let found = byMethod.get(method)
  if (!found) {
    found = histogramSeries(httpDuration, { method, route, status: String(status) })
    byMethod.set(method, found)
  }
  return found
}

/**
 * Finishes a request: the duration metric and the one log line (no key, no address, no query
 * string). `level` lets the busiest answer (a redirect) log at debug.
 */
export function finishRequest(
  ctx: Ctx,
  start: RequestStart,
  end: RequestEnd,
  level: 'info' | 'debug' = 'info',
): void {
  const ms = performance.now() - start.started
  const method = end.method ?? 'GET'
  durationSeries(method, end.route ?? 'unmatched', end.status)(ms / 1000)
  if (!ctx.logger.isLevelEnabled(level)) return
  const route = end.route ?? end.path?.replace(KEY_IN_PATH, 'qrk_[redacted]') ?? 'unmatched'
  const line: Record<string, unknown> = {
    requestId: start.id,
    method,
    route,
    status: end.status,
    ms,
    accountId: end.accountId,
  }
  if (end.outcome !== undefined) line.outcome = end.outcome
  ctx.logger[level](line, 'request')
}

/**
 * What a fast path that hands a request to Express has already done: begun it, and passed (or
 * failed) the gate, which spent a point of the rate limit. Express's steps take these instead
 * of doing them again, so the request is timed once, logged once and counted once.
 */
export interface Handover {
  start: RequestStart
  gate: { auth: Auth } | { error: unknown }
}

const handovers = new WeakMap<IncomingMessage, Handover>()

export function handOver(req: IncomingMessage, handover: Handover): void {
  handovers.set(req, handover)
}

export function handedOver(req: IncomingMessage): Handover | undefined {
  return handovers.get(req)
}
