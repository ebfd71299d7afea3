import type { IncomingMessage, ServerResponse } from 'node:http'
import { Counter } from 'prom-client'
import type { Ctx } from '../context.js'
import { fromDatabaseError } from '../db/errors.js'
import type { HotLookups } from '../db/hot-lookup.js'
import { registry } from '../lib/metrics.js'
import {
  errorPage,
  gonePage,
  notFoundPage,
  PAGE_HEADERS,
  unavailablePage,
} from '../modules/redirects/redirects.pages.js'
import { createRedirectLookup, type RedirectTarget } from '../modules/redirects/redirects.repository.js'
import { parseShortCode, resolveRedirect } from '../modules/redirects/redirects.service.js'
import type { ScanRecorder } from '../modules/scans/scan-recorder.js'
import { clientAddress } from './client-address.js'
import { beginRequest, finishRequest, type RequestStart } from './request.js'

const outcomes = new Counter({
  name: 'qrctl_redirects_total',
  help: 'Short-link requests by outcome: counted, not_counted (bot, previewer or HEAD), not_found, gone, unavailable, error',
  labelNames: ['outcome'] as const,
  registers: [registry],
})
const counted = outcomes.labels('counted')
const notCounted = outcomes.labels('not_counted')

const ROUTE = '/r/:shortCode'

export interface FastPath {
  /** Answers the request and says true, or says false and leaves it to the next path. */
  handle(req: IncomingMessage, res: ServerResponse): boolean
}

/**
 * `GET|HEAD /r/{shortCode}` (DESIGN §7) on the bare node:http request, ahead of Express: the
 * one public path that takes a scanner's whole traffic, where Express's router and middleware
 * would cost about half its throughput. It has no Express route; it runs the same first and
 * last steps as every request (request.ts: id, timer, metric, log line at debug for a
 * redirect), the one client-address rule, and the redirect decision of modules/redirects.
 * Scans are buffered after the answer is sent; no raw IP is logged or kept.
 */
export function createRedirectPath(ctx: Ctx, recorder: ScanRecorder, lookups: HotLookups): FastPath {
  const find = createRedirectLookup(ctx.db, lookups)
  const trustProxyHops = ctx.config.trustProxyHops

  const sendPage = (
    res: ServerResponse,
    status: number,
    body: string,
    extra: Record<string, string> = {},
  ) => {
    res.writeHead(status, { ...PAGE_HEADERS, ...extra, 'Content-Length': Buffer.byteLength(body) })
    res.end(body)
  }

  const finish = (req: IncomingMessage, start: RequestStart, status: number, outcome: string) =>
    finishRequest(
      ctx,
      start,
      { method: req.method, route: ROUTE, status, outcome },
      status === 302 ? 'debug' : 'info',
    )

  const answer = (
    req: IncomingMessage,
    res: ServerResponse,
    start: RequestStart,
    shortCode: string | undefined,
    target: RedirectTarget | undefined,
  ) => {
    const resolution = resolveRedirect(target)
    if (resolution.kind === 'not_found') {
      outcomes.labels('not_found').inc()
      sendPage(res, 404, notFoundPage(shortCode))
      return finish(req, start, 404, 'not_found')
    }
    if (resolution.kind === 'gone') {
      outcomes.labels('gone').inc()
      sendPage(res, 410, gonePage())
      return finish(req, start, 410, 'gone')
    }
    res.writeHead(302, {
      Location: resolution.location,
      'Cache-Control': 'no-store',
      'X-Robots-Tag': 'noindex',
      'Content-Length': '0',
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
    finish(req, start, 302, isCounted ? 'counted' : 'not_counted')
  }

  const fail = (req: IncomingMessage, res: ServerResponse, start: RequestStart, error: unknown) => {
    // The database is down or locked: a 503 page the scanner can retry, not an error of ours.
    const unavailable = fromDatabaseError(error)
    if (unavailable) {
      outcomes.labels('unavailable').inc()
      ctx.logger.warn({ err: error, requestId: start.id }, 'redirect lookup: database unavailable')
      if (!res.headersSent)
        sendPage(res, 503, unavailablePage(), { 'Retry-After': String(unavailable.details.retryAfter) })
      else res.end()
      return finish(req, start, 503, 'unavailable')
    }
    outcomes.labels('error').inc()
    ctx.logger.error({ err: error, requestId: start.id }, 'redirect lookup failed')
    if (!res.headersSent) sendPage(res, 500, errorPage())
    else res.end()
    finish(req, start, 500, 'error')
  }

  return {
    handle(req, res) {
      const url = req.url
      if (!url?.startsWith('/r/') || (req.method !== 'GET' && req.method !== 'HEAD')) return false
      const start = beginRequest(req, res)
      const shortCode = parseShortCode(url)
      if (!shortCode) {
        answer(req, res, start, undefined, undefined)
        return true
      }
      try {
        lookups.refresh()
        const found = find(shortCode)
        if (found instanceof Promise)
          found
            .then((target) => answer(req, res, start, shortCode, target))
            .catch((error: unknown) => fail(req, res, start, error))
        else answer(req, res, start, shortCode, found)
      } catch (error) {
        fail(req, res, start, error)
      }
      return true
    },
  }
}
