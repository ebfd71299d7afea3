import type { IncomingMessage, ServerResponse } from 'node:http'
import { Counter } from 'prom-client'
import type { Ctx } from '../context.js'
import { fromDatabaseError } from '../db/errors.js'
import type { HotLookups } from '../db/hot-lookup.js'
import type { GeoLocation } from '../geo/geoip.js'
import { counterSeries, registry } from '../lib/metrics.js'
import { verifyPassword } from '../modules/redirects/password.js'
import { PasswordLockout } from '../modules/redirects/password-lockout.js'
import {
  badFormPage,
  errorPage,
  expiredPage,
  gonePage,
  limitReachedPage,
  lockedPage,
  notFoundPage,
  PAGE_HEADERS,
  PASSWORD_PAGE_HEADERS,
  passwordPage,
  unavailablePage,
} from '../modules/redirects/redirects.pages.js'
import { createRedirectLookup, type RedirectTarget } from '../modules/redirects/redirects.repository.js'
import {
  afterLimit,
  type GoneReason,
  parseShortCode,
  type Resolution,
  resolveRedirect,
} from '../modules/redirects/redirects.service.js'
import { preferredLanguage, ruleOsOf, type ScanFacts } from '../modules/redirects/scan-facts.js'
import { scanLimitReached } from '../modules/redirects/scan-limit.js'
import { createScanReservations } from '../modules/redirects/scan-reservations.js'
import { type UserAgentDetails, userAgentDetails } from '../modules/scans/scan-details.js'
import type { ScanRecorder } from '../modules/scans/scan-recorder.js'
import { clientAddress } from './client-address.js'
import { finishRequest, type RequestStart, startRequest, withRequestHeaders } from './request.js'

const outcomes = new Counter({
  name: 'qrctl_redirects_total',
  help: 'Short-link requests by outcome: counted, not_counted (bot, previewer or HEAD), not_found, gone, expired, limit, password, wrong_password, locked, bad_form, unavailable, error',
  labelNames: ['outcome'] as const,
  registers: [registry],
})
/** One bound series per outcome (lib/metrics.ts: prom-client's labels() costs about a µs a call). */
const outcomeSeries = new Map<string, () => void>()
function countOutcome(outcome: string): void {
  let inc = outcomeSeries.get(outcome)
  if (!inc) {
    inc = counterSeries(outcomes, { outcome })
    outcomeSeries.set(outcome, inc)
  }
  inc()
}

const ROUTE = '/r/:shortCode'
/** A password form is one field and a referrer; anything larger is not ours. */
const MAX_FORM_BYTES = 8 * 1024

export interface FastPath {
  /** Answers the request and says true, or says false and leaves it to the next path. */
  handle(req: IncomingMessage, res: ServerResponse): boolean
}

/**
 * One short-link request as the decisions see it, and the facts its rules may ask about
 * (DESIGN §14), each gathered at most once and only when asked: the time, the user agent's
 * details, the client address and its place, the language, the query. One object with
 * its methods on the prototype, not a closure per fact: the request's only allocation here.
 */
class Scan implements ScanFacts {
  /** The referrer the scan is recorded with: the header, or the password form's copy of it. */
  referer: string | undefined
  /** `?…` of the request URL, or ''. */
  readonly search: string
  private time: Date | undefined
  private details: UserAgentDetails | undefined
  private client: string | undefined
  private whereabouts: GeoLocation | undefined
  private preferred: string | null | undefined
  private params: URLSearchParams | undefined

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly start: RequestStart,
    readonly shortCode: string,
    private readonly path: PathContext,
  ) {
    const url = req.url ?? ''
    const q = url.indexOf('?')
    this.search = q === -1 ? '' : url.slice(q)
    this.referer = req.headers.referer
  }

  /** Whether a redirect of this request is a scan: bots and link previewers, and HEAD, are not. */
  counts(): boolean {
    return this.req.method !== 'HEAD' && !this.agent().isBot
  }
  get now(): Date {
    this.time ??= this.path.clock.now()
    return this.time
  }
  agent(): UserAgentDetails {
    this.details ??= userAgentDetails(this.req.headers['user-agent'])
    return this.details
  }
  address(): string {
    this.client ??= clientAddress(this.req, this.path.trustProxyHops)
    return this.client
  }
  device() {
    return this.agent().device
  }
  os() {
    return ruleOsOf(this.agent().os)
  }
  place(): GeoLocation {
    this.whereabouts ??= this.path.recorder.place(this.address())
    return this.whereabouts
  }
  country(): string | null {
    return this.place().country
  }
  language(): string | null {
    if (this.preferred === undefined) this.preferred = preferredLanguage(this.req.headers['accept-language'])
    return this.preferred
  }
  query(): URLSearchParams {
    this.params ??= new URLSearchParams(this.search)
    return this.params
  }
}

/** What every Scan of one path shares. */
interface PathContext {
  clock: Ctx['clock']
  trustProxyHops: number
  recorder: ScanRecorder
}

const GONE_PAGES: Record<GoneReason, () => string> = {
  inactive: gonePage,
  expired: expiredPage,
  limit: limitReachedPage,
}

/**
 * `GET|HEAD|POST /r/{shortCode}` (DESIGN §7, §14) on the bare node:http request, ahead of
 * Express: the one public path that takes a scanner's whole traffic, where Express's router
 * and middleware would cost about half its throughput. It runs the same first and last steps
 * as every request (request.ts: id, timer, metric, log line at debug for a redirect), the one
 * client-address rule, and the redirect decision of modules/redirects: facts are gathered
 * once, lazily, and the only write before the answer is the scan-limit reservation. Scans are
 * buffered after the answer is sent; no raw IP, password or query string is logged or kept.
 */
export function createRedirectPath(ctx: Ctx, recorder: ScanRecorder, lookups: HotLookups): FastPath {
  const find = createRedirectLookup(ctx.db, lookups)
  const lockout = new PasswordLockout(ctx, recorder.pseudonym)
  const path: PathContext = { clock: ctx.clock, trustProxyHops: ctx.config.trustProxyHops, recorder }
  const reservations = createScanReservations(ctx)

  /** Every answer is one `writeHead` with the request's own headers in it (`withRequestHeaders`). */
  const sendPage = (
    res: ServerResponse,
    start: RequestStart,
    status: number,
    body: string,
    extra: Record<string, string> = {},
    headers: Record<string, string> = PAGE_HEADERS,
  ) => {
    res.writeHead(
      status,
      withRequestHeaders(start, { ...headers, ...extra, 'Content-Length': Buffer.byteLength(body) }),
    )
    res.end(body)
  }

  const finish = (req: IncomingMessage, start: RequestStart, status: number, outcome: string) => {
    countOutcome(outcome)
    finishRequest(
      ctx,
      start,
      { method: req.method, route: ROUTE, status, outcome },
      status === 302 ? 'debug' : 'info',
    )
  }

  /** The 302, then the scan (after the answer: DESIGN §7). Bots and HEAD are sent on, not counted. */
  const redirect = (scan: Scan, qrCodeId: string, location: string) => {
    const { req, res, start } = scan
    res.writeHead(
      302,
      withRequestHeaders(start, {
        Location: location,
        'Cache-Control': 'no-store',
        'X-Robots-Tag': 'noindex',
        'Content-Length': '0',
      }),
    )
    res.end()
    const isCounted = scan.counts()
    if (isCounted)
      recorder.record({
        qrCodeId,
        ip: scan.address(),
        userAgent: req.headers['user-agent'],
        agent: scan.agent(),
        place: scan.place(),
        referer: scan.referer,
      })
    finish(req, start, 302, isCounted ? 'counted' : 'not_counted')
  }

  const answer = (scan: Scan, resolution: Resolution, target: RedirectTarget | undefined) => {
    const { req, res, start } = scan
    switch (resolution.kind) {
      case 'not_found':
        sendPage(res, start, 404, notFoundPage(scan.shortCode))
        return finish(req, start, 404, 'not_found')
      case 'gone':
        sendPage(res, start, 410, GONE_PAGES[resolution.reason]())
        return finish(req, start, 410, resolution.reason === 'inactive' ? 'gone' : resolution.reason)
      case 'password':
        sendPage(
          res,
          start,
          200,
          passwordPage(formAction(scan), scan.referer ?? '', false),
          {},
          PASSWORD_PAGE_HEADERS,
        )
        return finish(req, start, 200, 'password')
      case 'redirect': {
        // Only a scan that counts uses up the limit: bots and HEAD follow the decision for free.
        const takesScan = resolution.reserve && scan.counts()
        if (!takesScan || !target) return redirect(scan, resolution.qrCodeId, resolution.location)
        return reserveThenRedirect(scan, target, resolution.location)
      }
    }
  }

  const reserveThenRedirect = (scan: Scan, target: RedirectTarget, location: string) => {
    reservations
      .reserve(target.qrCodeId)
      .then((taken) => {
        if (!taken) return answer(scan, afterLimit(target), undefined)
        redirect(scan, target.qrCodeId, location)
        if (taken.reserved === taken.maxScans)
          scanLimitReached(ctx, target.qrCodeId, taken.maxScans).catch((error: unknown) =>
            ctx.logger.error({ err: error, qrCodeId: target.qrCodeId }, 'scan limit hook failed'),
          )
      })
      .catch((error: unknown) => fail(scan.req, scan.res, scan.start, error))
  }

  const formAction = (scan: Scan) => `/r/${scan.shortCode}${scan.search}`

  const fail = (req: IncomingMessage, res: ServerResponse, start: RequestStart, error: unknown) => {
    // The database is down or locked: a 503 page the scanner can retry, not an error of ours.
    const unavailable = fromDatabaseError(error)
    if (unavailable) {
      ctx.logger.warn({ err: error, requestId: start.id }, 'redirect lookup: database unavailable')
      if (!res.headersSent)
        sendPage(res, start, 503, unavailablePage(), {
          'Retry-After': String(unavailable.details.retryAfter),
        })
      else res.end()
      return finish(req, start, 503, 'unavailable')
    }
    ctx.logger.error({ err: error, requestId: start.id }, 'redirect lookup failed')
    if (!res.headersSent) sendPage(res, start, 500, errorPage())
    else res.end()
    finish(req, start, 500, 'error')
  }

  const lookup = (shortCode: string): Promise<RedirectTarget | undefined> | RedirectTarget | undefined => {
    lookups.refresh()
    return find(shortCode)
  }

  /** DESIGN §14's password form: the lockout, the slow check, then the same decisions as a GET. */
  const checkPassword = async (scan: Scan, form: URLSearchParams) => {
    const { req, res, start } = scan
    const target = await lookup(scan.shortCode)
    const first = resolveRedirect(target, scan)
    if (first.kind !== 'password' || !target?.passwordHash) return answer(scan, first, target)
    const key = lockout.key(target.qrCodeId, scan.address())
    const retryAfter = await lockout.begin(key, ctx.clock.now().getTime())
    if (retryAfter > 0) {
      sendPage(res, start, 429, lockedPage(retryAfter), { 'Retry-After': String(retryAfter) })
      return finish(req, start, 429, 'locked')
    }
    // The try stays counted unless the password is right (a check that throws included).
    if (!(await verifyPassword(form.get('password') ?? '', target.passwordHash))) {
      sendPage(
        res,
        start,
        401,
        passwordPage(formAction(scan), scan.referer ?? '', true),
        {},
        PASSWORD_PAGE_HEADERS,
      )
      return finish(req, start, 401, 'wrong_password')
    }
    // A count that cannot be cleared now stays, on the safe side; the visitor goes on.
    await lockout
      .clear(key)
      .catch((error: unknown) =>
        ctx.logger.warn({ err: error, requestId: start.id }, 'clearing a password lockout count failed'),
      )
    answer(scan, resolveRedirect(target, scan, true), target)
  }

  const handlePost = (scan: Scan) => {
    const { req, res, start } = scan
    const type = req.headers['content-type'] ?? ''
    const chunks: Buffer[] = []
    let size = 0
    let refused = !type.toLowerCase().startsWith('application/x-www-form-urlencoded')
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_FORM_BYTES) refused = true
      else if (!refused) chunks.push(chunk)
    })
    req.on('error', (error) => fail(req, res, start, error))
    req.on('end', () => {
      if (refused) {
        sendPage(res, start, 400, badFormPage())
        return finish(req, start, 400, 'bad_form')
      }
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
      // The scan keeps the referrer of the GET that showed the form (DESIGN §14).
      scan.referer = form.get('referrer') || undefined
      checkPassword(scan, form).catch((error: unknown) => fail(req, res, start, error))
    })
  }

  return {
    handle(req, res) {
      const url = req.url
      const method = req.method
      if (!url?.startsWith('/r/') || (method !== 'GET' && method !== 'HEAD' && method !== 'POST'))
        return false
      const start = startRequest(req)
      const shortCode = parseShortCode(url)
      if (!shortCode) {
        req.resume()
        sendPage(res, start, 404, notFoundPage(undefined))
        finish(req, start, 404, 'not_found')
        return true
      }
      const scan = new Scan(req, res, start, shortCode, path)
      if (method === 'POST') {
        handlePost(scan)
        return true
      }
      try {
        const found = lookup(shortCode)
        if (found instanceof Promise)
          found
            .then((target) => answer(scan, resolveRedirect(target, scan), target))
            .catch((error: unknown) => fail(req, res, start, error))
        else answer(scan, resolveRedirect(found, scan), found)
      } catch (error) {
        fail(req, res, start, error)
      }
      return true
    },
  }
}
