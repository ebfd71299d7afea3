import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, extname, join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { type ErrorRequestHandler, type Request, type Response, Router } from 'express'
import type { Ctx } from '../context.js'
import { fromDatabaseError } from '../db/errors.js'
import { toErrorResponse, validation } from '../errors.js'
import { type PagePolicy, sendPage } from '../lib/html.js'
import { clearedSessionCookie, readSessionCookie } from '../modules/sessions/session-cookie.js'
import { renderMessagePage } from '../modules/sessions/sessions.page.js'
import { sendAppPage } from '../modules/sessions/sessions.router.js'
import { findLiveSession } from '../modules/sessions/sessions.service.js'

const require = createRequire(import.meta.url)

/** `web/dist` of the `@qrctl/web` workspace, found as Node finds the package; undefined when not installed. */
export function locateWebDist(): string | undefined {
  try {
    return join(dirname(require.resolve('@qrctl/web/package.json')), 'dist')
  } catch {
    return undefined
  }
}

/**
 * The dashboard's page policy (DESIGN §19): only the script carrying this response's nonce
 * runs, and what it loads ('strict-dynamic'); styles, images, fetches from this origin only.
 */
function appCsp(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'nonce-${nonce}' 'strict-dynamic'`,
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** The dashboard's page: revalidated every time (a build changes it). */
const DASHBOARD_PAGE: PagePolicy = { csp: appCsp, referrerPolicy: 'same-origin', cacheControl: 'no-cache' }

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
}
const COMPRESSIBLE = new Set(['.js', '.mjs', '.css', '.map', '.json', '.svg', '.txt'])

interface Asset {
  type: string
  etag: string
  body: Buffer
  /** Present when gzip saves bytes: made once, on first request. */
  gzip: Buffer | undefined
}

/** One path segment of a built file: no dot first (no `..`, no hidden files), no separators. */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/

/** Whether the client takes gzip: named in Accept-Encoding (or `*`) without `q=0`. */
function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false
  return header.split(',').some((part) => {
    const [coding = '', ...params] = part.trim().toLowerCase().split(';')
    if (coding.trim() !== 'gzip' && coding.trim() !== '*') return false
    return !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p))
  })
}

/**
 * The built dashboard: its index.html, re-read when the build changes it, and its hashed
 * assets, read (and gzipped) once each on first request and kept, since a hashed name's
 * content never changes.
 */
export class WebDist {
  private index: { mtimeMs: number; html: string } | undefined
  private readonly assets = new Map<string, Asset>()

  constructor(private readonly dir: string | undefined = locateWebDist()) {}

  /** The index template, or undefined when the dashboard is not built. */
  indexHtml(): string | undefined {
    if (!this.dir) return undefined
    const file = join(this.dir, 'index.html')
    try {
      const { mtimeMs } = statSync(file)
      if (this.index?.mtimeMs !== mtimeMs) this.index = { mtimeMs, html: readFileSync(file, 'utf8') }
      return this.index.html
    } catch {
      return undefined
    }
  }

  /** The file at `segments` under dist/assets, or undefined for any name that is not a built file. */
  asset(segments: string[]): Asset | undefined {
    if (!this.dir || segments.length === 0 || segments.length > 4) return undefined
    if (!segments.every((segment) => SEGMENT.test(segment))) return undefined
    const name = segments.join('/')
    const kept = this.assets.get(name)
    if (kept) return kept
    const file = join(this.dir, 'assets', ...segments)
    let body: Buffer
    try {
      if (!statSync(file).isFile()) return undefined
      body = readFileSync(file)
    } catch {
      return undefined
    }
    const ext = extname(file).toLowerCase()
    const gzip = COMPRESSIBLE.has(ext) && body.length > 512 ? gzipSync(body, { level: 9 }) : undefined
    const asset: Asset = {
      type: TYPES[ext] ?? 'application/octet-stream',
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      body,
      gzip: gzip && gzip.length < body.length ? gzip : undefined,
    }
    // A handful of files per build; the bound only matters for a server that outlives many builds.
    if (this.assets.size >= 1000) this.assets.clear()
    this.assets.set(name, asset)
    return asset
  }
}

const notFoundPage = (res: Response) =>
  sendAppPage(res, 404, (nonce) =>
    renderMessagePage(nonce, {
      title: 'Not found',
      message: 'There is no such page or file in the qrctl dashboard.',
      link: { href: '/app', text: 'Go to the dashboard' },
    }),
  )

function serveAsset(dist: WebDist, req: Request, res: Response): void {
  const path = req.params.path as string[] | string | undefined
  const asset = dist.asset(Array.isArray(path) ? path : path ? [path] : [])
  if (!asset) {
    notFoundPage(res)
    return
  }
  const useGzip = asset.gzip !== undefined && acceptsGzip(req.get('accept-encoding'))
  res.setHeader('Content-Type', asset.type)
  res.setHeader('Cache-Control', 'public, max-age=31536000, immutable')
  res.setHeader('ETag', asset.etag)
  if (asset.gzip) res.setHeader('Vary', 'Accept-Encoding')
  // Revalidation by ETag, whatever Cache-Control the request carries (fetch adds no-cache to
  // conditional requests, which Express's own freshness check would take as "send it all").
  const wanted = req.get('if-none-match')
  if (wanted?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === asset.etag)) {
    res.status(304).end()
    return
  }
  if (useGzip) res.setHeader('Content-Encoding', 'gzip')
  // res.send answers HEAD without a body.
  res.send(useGzip ? asset.gzip : asset.body)
}

/**
 * GET /app/assets/* (the hashed files) and GET /app, /app/* (the single-page app, signed in
 * only): index.html with this response's CSP nonce and the session's CSRF token filled in
 * (DESIGN §19). /app/login and /app/logout are the sessions router's, mounted before.
 */
export function createWebAppRouter(ctx: Ctx, dist: WebDist = new WebDist()): Router {
  const router = Router()

  router.get('/app/assets/{*path}', (req, res) => serveAsset(dist, req, res))
  router.all('/app/assets{/*path}', (_req, res) => notFoundPage(res))

  router.get(['/app', '/app/{*rest}'], async (req, res) => {
    const template = dist.indexHtml()
    if (template === undefined)
      return sendAppPage(res, 503, (nonce) =>
        renderMessagePage(nonce, {
          title: 'Dashboard not built',
          message:
            'The dashboard’s files are missing from this server. Run `npm run build` in the qrctl folder, then reload this page.',
        }),
      )
    const cookie = readSessionCookie(req.headers.cookie)
    const session = cookie ? await findLiveSession(ctx, cookie) : undefined
    if (!session) {
      // An ended session's cookie is of no more use: the browser may forget it.
      if (req.headers.cookie?.includes('qrctl_session'))
        res.setHeader('Set-Cookie', clearedSessionCookie(ctx.config.publicBaseUrl.startsWith('https:')))
      res.setHeader('Cache-Control', 'no-store')
      return res.redirect(303, '/app/login')
    }
    // The page carries the session's CSRF token: a cache must never hand it to another cookie.
    res.setHeader('Vary', 'Cookie')
    sendPage(res, 200, DASHBOARD_PAGE, (nonce) =>
      template.replaceAll('__CSP_NONCE__', nonce).replaceAll('__CSRF_TOKEN__', session.csrfToken),
    )
  })

  router.all(['/app', '/app/{*rest}'], (_req, res) => notFoundPage(res))

  return router
}

/**
 * Errors raised on /app's routes, answered as pages rather than the API's JSON: a broken URL
 * is a 400, a database that is down or locked a 503 with Retry-After, anything else a 500
 * logged with the request id (and never shown). The status comes from the one error model.
 */
export function appPageErrors(ctx: Ctx): ErrorRequestHandler {
  return (thrown: unknown, req, res, _next) => {
    const error =
      thrown instanceof URIError
        ? validation(
            [{ path: '', message: 'The URL is not validly percent-encoded' }],
            'The URL is not validly percent-encoded',
          )
        : (fromDatabaseError(thrown) ?? thrown)
    const { status, body } = toErrorResponse(error, req.id)
    if (status === 503) ctx.logger.warn({ err: thrown, requestId: req.id }, 'database unavailable')
    else if (status >= 500) ctx.logger.error({ err: thrown, requestId: req.id }, 'unhandled error')
    if (res.headersSent) return void req.socket.destroy()
    const retryAfter = body.details.retryAfter
    if (typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter))
    sendAppPage(res, status, (nonce) =>
      renderMessagePage(nonce, {
        title: status === 503 ? 'Try again shortly' : status >= 500 ? 'Something went wrong' : 'Bad request',
        message: `${body.details.message} (request ${req.id}).`,
        link: { href: '/app', text: 'Go to the dashboard' },
      }),
    )
  }
}
