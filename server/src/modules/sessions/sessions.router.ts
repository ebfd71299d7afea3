import type { IncomingMessage } from 'node:http'
import express, { type NextFunction, type Request, type Response, Router } from 'express'
import type { Ctx } from '../../context.js'
import { type PagePolicy, sendPage } from '../../lib/html.js'
import { clearedSessionCookie, readSessionCookie, sessionCookie } from './session-cookie.js'
import { renderLoginPage, renderMessagePage } from './sessions.page.js'
import * as sessions from './sessions.service.js'

/** Failed sign-ins (wrong keys, bad links) a client address may make per minute. */
export const FAILED_SIGN_INS_PER_MINUTE = 10

/** How the router limits sign-in attempts, per client address (injected: modules never import http/). */
export interface SignInThrottle {
  /** Spends one attempt; `allowed: false` with the seconds until the window resets when over the limit. */
  take(address: string): Promise<{ allowed: boolean; retryAfter: number }>
  /** Gives back an attempt that succeeded, so only failures count. */
  giveBack(address: string): Promise<void>
}

export interface SessionsRouterDeps {
  throttle: SignInThrottle
  /** The client address by the server's one rule (TRUST_PROXY); never logged. */
  clientAddress(req: IncomingMessage): string
}

const PAGE_CSP = (nonce: string) =>
  [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ')

/**
 * An HTML answer of /app's own: strict CSP (no script at all), no framing, revalidated every
 * time. A login link's token never travels to another site in a Referer. Not `no-referrer`:
 * under it browsers send `Origin: null` with the form's own POST, which the login-CSRF check
 * must then take on Sec-Fetch-Site alone (browsers without it would be refused).
 */
const APP_PAGE: PagePolicy = { csp: PAGE_CSP, referrerPolicy: 'same-origin', cacheControl: 'no-cache' }

export function sendAppPage(res: Response, status: number, render: (nonce: string) => string): void {
  sendPage(res, status, APP_PAGE, render)
}

const loginPage = (res: Response, status: number, error?: string) =>
  sendAppPage(res, status, (nonce) => renderLoginPage(nonce, error))

function isSecure(ctx: Ctx): boolean {
  return ctx.config.publicBaseUrl.startsWith('https:')
}

/**
 * 303 to /app with the new session's cookie: the key or link is never seen by the page. A
 * session the browser still held is ended: one browser, one session.
 */
async function signedIn(
  ctx: Ctx,
  req: Request,
  res: Response,
  opened: sessions.OpenedSession,
): Promise<void> {
  const previous = readSessionCookie(req.headers.cookie)
  if (previous) await sessions.endSession(ctx, previous)
  res.setHeader(
    'Set-Cookie',
    sessionCookie(opened.sessionId, { isSecure: isSecure(ctx), maxAge: ctx.config.sessionMaxSeconds }),
  )
  res.setHeader('Cache-Control', 'no-store')
  res.setHeader('Referrer-Policy', 'no-referrer')
  res.redirect(303, '/app')
}

/**
 * Login CSRF: another site must not sign a visitor in to an account of its choosing. Browsers
 * say where a form post comes from (`Sec-Fetch-Site`, `Origin`); a post that says another
 * site (or an opaque `null` origin) is refused. Clients that say neither (curl) are no browser
 * a third site could drive.
 */
function isCrossSite(ctx: Ctx, req: Request): boolean {
  const site = req.get('sec-fetch-site')
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true
  // A browser that says same-origin is believed (no page can forge the header): under a
  // `Referrer-Policy: no-referrer` Chromium sends `Origin: null` with a form's own POST.
  if (site === 'same-origin') return false
  const origin = req.get('origin')
  if (origin === undefined) return false
  if (origin === new URL(ctx.config.publicBaseUrl).origin) return false
  try {
    return new URL(origin).host !== req.get('host')
  } catch {
    return true
  }
}

/** The form body, or undefined when the request has none. Bad bodies are the error handler's. */
const formBody = express.urlencoded({
  extended: false,
  limit: '16kb',
  parameterLimit: 20,
  inflate: false,
  type: 'application/x-www-form-urlencoded',
})

function hasBody(req: Request): boolean {
  return (
    req.headers['transfer-encoding'] !== undefined ||
    (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0')
  )
}

/** One text field of a parsed form, or undefined (missing, repeated, or not text). */
function field(req: Request, name: string): string | undefined {
  const body: unknown = req.body
  if (typeof body !== 'object' || body === null) return undefined
  const value = (body as Record<string, unknown>)[name]
  return typeof value === 'string' ? value : undefined
}

/**
 * GET and POST /app/login, POST /app/logout (DESIGN §19). Every answer is a page or a
 * redirect: bad input gets a page that says what was wrong, never the API's JSON or a 500.
 */
export function createSessionsRouter(ctx: Ctx, deps: SessionsRouterDeps): Router {
  const router = Router()

  /** Runs a sign-in attempt under the per-address limit: failures count, successes are given back. */
  const attempt = async (req: Request, res: Response, run: () => Promise<boolean>) => {
    const address = `signin:${deps.clientAddress(req) || 'unknown'}`
    const spent = await deps.throttle.take(address)
    if (!spent.allowed) {
      res.setHeader('Retry-After', String(spent.retryAfter))
      return loginPage(
        res,
        429,
        `Too many failed sign-ins from your address. Try again in ${spent.retryAfter} seconds.`,
      )
    }
    if (await run()) await deps.throttle.giveBack(address)
  }

  router.get('/app/login', async (req, res) => {
    const token = req.query.token
    if (token === undefined) return loginPage(res, 200)
    await attempt(req, res, async () => {
      const opened = typeof token === 'string' ? await sessions.signInWithLink(ctx, token) : undefined
      if (!opened) {
        loginPage(
          res,
          401,
          'This sign-in link has expired, was already used, or is not valid. Ask for a new one, or sign in with an API key.',
        )
        return false
      }
      await signedIn(ctx, req, res, opened)
      return true
    })
  })

  router.post('/app/login', formBodyOrPage, async (req, res) => {
    if (isCrossSite(ctx, req))
      return sendAppPage(res, 403, (nonce) =>
        renderMessagePage(nonce, {
          title: 'Sign-in refused',
          message: 'A sign-in must come from the qrctl sign-in page itself, not from another site.',
          link: { href: '/app/login', text: 'Go to the sign-in page' },
        }),
      )
    if (!req.is('application/x-www-form-urlencoded'))
      return loginPage(res, 400, 'Sign in with the form below (the body must be a URL-encoded form).')
    await attempt(req, res, async () => {
      const key = field(req, 'apiKey')?.trim()
      const opened = key ? await sessions.signInWithKey(ctx, key) : undefined
      if (!opened) {
        loginPage(res, 401, 'That API key is not valid, or it has been revoked. Check it and try again.')
        return false
      }
      await signedIn(ctx, req, res, opened)
      return true
    })
  })

  router.post('/app/logout', formBodyOrPage, async (req, res) => {
    const cookie = readSessionCookie(req.headers.cookie)
    const session = cookie ? await sessions.findLiveSession(ctx, cookie) : undefined
    if (session && cookie) {
      const presented = req.get('x-csrf-token') ?? field(req, 'csrfToken')
      if (!sessions.isCsrfTokenOf(session, presented))
        return sendAppPage(res, 403, (nonce) =>
          renderMessagePage(nonce, {
            title: 'Sign-out refused',
            message:
              'Signing out needs the CSRF token of your dashboard page. Reload the dashboard and use its Sign out button.',
            link: { href: '/app', text: 'Back to the dashboard' },
          }),
        )
      await sessions.endSession(ctx, cookie)
    }
    // Signed out now, or already: either way the browser forgets the cookie. A post that came
    // without the cookie (another site's form: SameSite=Strict keeps it home) clears nothing,
    // or that site could end the visitor's dashboard session by making the browser drop it.
    if (cookie) res.setHeader('Set-Cookie', clearedSessionCookie(isSecure(ctx)))
    res.setHeader('Cache-Control', 'no-store')
    res.redirect(303, '/app/login')
  })

  return router

  /** The form parser, with its failures answered as a page: 413 too large, 400 anything else. */
  function formBodyOrPage(req: Request, res: Response, next: NextFunction) {
    if (!hasBody(req)) return next()
    formBody(req, res, (error?: unknown) => {
      if (!error) return next()
      const type = typeof error === 'object' && error !== null && 'type' in error ? error.type : undefined
      if (type === 'entity.too.large')
        return loginPage(
          res,
          413,
          'That form was far larger than a sign-in needs. Try again with the form below.',
        )
      return loginPage(res, 400, 'That form could not be read. Try again with the form below.')
    })
  }
}
