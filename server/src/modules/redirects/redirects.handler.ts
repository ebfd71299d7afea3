import type { IncomingMessage, ServerResponse } from 'node:http'
import { Counter } from 'prom-client'
import type { Ctx } from '../../context.js'
import { fromDatabaseError } from '../../db/errors.js'
import type { Reader } from '../../db/reader.js'
import { registry } from '../../http/metrics.js'
import { requestIdFrom } from '../../lib/request-id.js'
import type { ScanRecorder } from '../scans/scan-recorder.js'
import { errorPage, gonePage, notFoundPage, PAGE_HEADERS, unavailablePage } from './redirects.pages.js'
import { createRedirectLookup, type RedirectTarget } from './redirects.repository.js'
import { parseShortCode, resolveRedirect } from './redirects.service.js'

const outcomes = new Counter({
  name: 'qrctl_redirects_total',
  help: 'Short-link requests by outcome: counted, not_counted (bot, previewer or HEAD), not_found, gone, unavailable, error',
  labelNames: ['outcome'] as const,
  registers: [registry],
})
const counted = outcomes.labels('counted')
const notCounted = outcomes.labels('not_counted')

/**
 * The client address as Express's `req.ip` gives it with `trust proxy` set to a hop count:
 * the X-Forwarded-For entry that the last trusted proxy saw. Entries left of it are the
 * client's own words and are never believed.
 */
export function clientAddress(req: IncomingMessage, trustProxyHops: number): string {
  const socket = req.socket.remoteAddress ?? ''
  if (trustProxyHops === 0) return socket
  const header = req.headers['x-forwarded-for']
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
  if (forwarded.length === 0) return socket
  return forwarded[Math.max(0, forwarded.length - trustProxyHops)] as string
}

export interface RedirectHandler {
  /** Serves GET and HEAD /r/{shortCode}; answers false for every other request. */
  handle(req: IncomingMessage, res: ServerResponse): boolean
}

/**
 * `GET /r/{shortCode}` (DESIGN §7) on the bare node:http request, ahead of Express: this is
 * the one public path that takes a scanner's whole traffic, and Express's router and
 * middleware would cost it about half its throughput. It keeps what they would add here:
 * X-Request-Id, the proxy-aware client address, metrics, and a log line (debug for a
 * redirect, info otherwise). Scans are buffered after the answer is sent; no raw IP is
 * logged or kept.
 */
export function createRedirectHandler(
  ctx: Ctx,
  recorder: ScanRecorder,
  reader: Reader | undefined,
): RedirectHandler {
  const lookup = createRedirectLookup(ctx.db, reader)
  const trustProxyHops = ctx.config.trustProxyHops

  const sendPage = (
    res: ServerResponse,
    id: string,
    status: number,
    body: string,
    extra: Record<string, string> = {},
  ) => {
    res.writeHead(status, {
      ...PAGE_HEADERS,
      ...extra,
      'Content-Length': Buffer.byteLength(body),
      'X-Request-Id': id,
    })
    res.end(body)
  }

  const log = (id: string, method: string | undefined, status: number, started: number, outcome: string) => {
    const level = status === 302 ? 'debug' : 'info'
    if (!ctx.logger.isLevelEnabled(level)) return
    const ms = performance.now() - started
    ctx.logger[level]({ requestId: id, method, route: '/r/:shortCode', status, ms, outcome }, 'request')
  }

  const answer = (
    req: IncomingMessage,
    res: ServerResponse,
    id: string,
    started: number,
    shortCode: string | undefined,
    target: RedirectTarget | undefined,
  ) => {
    const resolution = resolveRedirect(target)
    if (resolution.kind === 'not_found') {
      outcomes.labels('not_found').inc()
      sendPage(res, id, 404, notFoundPage(shortCode))
      return log(id, req.method, 404, started, 'not_found')
    }
    if (resolution.kind === 'gone') {
      outcomes.labels('gone').inc()
      sendPage(res, id, 410, gonePage())
      return log(id, req.method, 410, started, 'gone')
    }
    res.writeHead(302, {
      Location: resolution.location,
      'Cache-Control': 'no-store',
      'X-Robots-Tag': 'noindex',
      'Content-Length': '0',
      'X-Request-Id': id,
    })
    res.end()
    const isCounted =
      req.method === 'GET' &&
      recorder.record({
        qrCodeId: resolution.qrCodeId,
        ip: clientAddress(req, trustProxyHops),
        userAgent: req.headers['user-agent'],
        referer: req.headers.referer,
      })
    ;(isCounted ? counted : notCounted).inc()
    log(id, req.method, 302, started, isCounted ? 'counted' : 'not_counted')
  }

  const fail = (req: IncomingMessage, res: ServerResponse, id: string, started: number, error: unknown) => {
    // The database is down or locked: a 503 page the scanner can retry, not an error of ours.
    const unavailable = fromDatabaseError(error)
    if (unavailable) {
      outcomes.labels('unavailable').inc()
      ctx.logger.warn({ err: error, requestId: id }, 'redirect lookup: database unavailable')
      if (!res.headersSent)
        sendPage(res, id, 503, unavailablePage(), { 'Retry-After': String(unavailable.details.retryAfter) })
      else res.end()
      return log(id, req.method, 503, started, 'unavailable')
    }
    outcomes.labels('error').inc()
    ctx.logger.error({ err: error, requestId: id }, 'redirect lookup failed')
    if (!res.headersSent) sendPage(res, id, 500, errorPage())
    else res.end()
    log(id, req.method, 500, started, 'error')
  }

  return {
    handle(req, res) {
      const url = req.url
      if (!url?.startsWith('/r/') || (req.method !== 'GET' && req.method !== 'HEAD')) return false
      const started = performance.now()
      const id = requestIdFrom(req.headers['x-request-id'])
      const shortCode = parseShortCode(url)
      if (!shortCode) {
        answer(req, res, id, started, undefined, undefined)
        return true
      }
      try {
        const found = lookup.find(shortCode)
        if (found instanceof Promise)
          found
            .then((target) => answer(req, res, id, started, shortCode, target))
            .catch((error: unknown) => fail(req, res, id, started, error))
        else answer(req, res, id, started, shortCode, found)
      } catch (error) {
        fail(req, res, id, started, error)
      }
      return true
    },
  }
}
