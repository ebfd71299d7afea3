import type { IncomingMessage, ServerResponse } from 'node:http'
import { contract, type RouteMetadata, type RouteScope } from '@qrctl/contract'
import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core'
import type { Ctx } from '../context.js'
import { type AppError, rateLimited, unauthorized } from '../errors.js'
import { accessProblem } from '../modules/accounts/accounts.policy.js'
import { type Auth, authenticate, type FindKeyByHash } from '../modules/api-keys/api-keys.service.js'
import { readSessionCookie } from '../modules/sessions/session-cookie.js'
import { authenticateSession } from '../modules/sessions/sessions.service.js'
import { clientAddress } from './client-address.js'
import type { RateLimitState, RateLimits } from './rate-limit.js'

const BEARER = /^Bearer\s+(\S+)\s*$/i

/** The secret of an `Authorization: Bearer …` header. */
export function bearer(header: string | undefined): string | undefined {
  return header?.match(BEARER)?.[1]
}

export function setRateLimitHeaders(res: ServerResponse, state: RateLimitState): void {
  res.setHeader('X-RateLimit-Limit', String(state.limit))
  res.setHeader('X-RateLimit-Remaining', String(state.remaining))
  res.setHeader('X-RateLimit-Reset', String(state.reset))
}

/** The scope each contract route declares in its metadata, found by method and path. */
export type RouteScopes = (method: string | undefined, path: string) => RouteScope | undefined

function routesOf(router: AppRouter): AppRoute[] {
  return Object.values(router).flatMap((entry) => (isAppRoute(entry) ? [entry] : routesOf(entry)))
}

/**
 * `/api/v1/qr-codes/:id/image.png` as a pattern: each `:param` is one path segment. Matched
 * as Express's router matches: case-insensitive, with an optional trailing slash.
 */
function pathPattern(path: string): RegExp {
  const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '[^/]+')
  return new RegExp(`^${escaped}/?$`, 'i')
}

export function routeScopes(router: AppRouter = contract): RouteScopes {
  const table = routesOf(router).map((route) => ({
    method: route.method,
    pattern: pathPattern(route.path),
    scope: (route.metadata as RouteMetadata).scope,
  }))
  return (method, path) => {
    const wanted = method === 'HEAD' ? 'GET' : method
    return table.find((route) => route.method === wanted && route.pattern.test(path))?.scope
  }
}

/**
 * The scope check again, on the route Express actually matched (ts-rest's `tsRestRoute`):
 * the gate checked it early by path, before any body was read; this makes sure no spelling of
 * a path reaches a route the early check did not see.
 */
export function checkMatchedRouteScope(
  req: IncomingMessage & { auth?: Auth; tsRestRoute?: AppRoute },
): AppError | undefined {
  if (!req.auth || !req.tsRestRoute) return undefined
  return accessProblem(req.auth, (req.tsRestRoute.metadata as RouteMetadata).scope)
}

/**
 * The dashboard's way in (DESIGN §19): the `qrctl_session` cookie counts only together with
 * `X-CSRF-Token` equal to that session's token, which a page of another site cannot read or
 * send; a cookie without it is ignored. Never looked at when a Bearer key is present (the key
 * decides), and costs nothing when there is no cookie.
 */
function sessionAuth(ctx: Ctx, req: IncomingMessage): Promise<Auth | undefined> | undefined {
  const csrfToken = req.headers['x-csrf-token']
  if (typeof csrfToken !== 'string') return undefined
  const sessionId = readSessionCookie(req.headers.cookie)
  return sessionId ? authenticateSession(ctx, sessionId, csrfToken) : undefined
}

export interface Gate {
  /**
   * Authentication, rate limit, plan and scope, in that order (DESIGN §3, §4), for Express's
   * middleware and the fast image path alike. Puts the rate-limit headers on `res`; answers
   * the caller or throws the AppError to answer. Requests without a valid key are limited per
   * client address, so keys cannot be guessed at speed. `findKey` is a hot path's own lookup
   * of the same query (db/hot-lookup.ts). A dashboard session (with its CSRF token) acts
   * exactly as its key: same account, scope, plan check and rate-limit bucket.
   */
  pass(
    req: IncomingMessage,
    res: ServerResponse,
    routeScope: RouteScope | undefined,
    findKey?: FindKeyByHash,
  ): Promise<Auth>
}

export function createGate(ctx: Ctx, limits: RateLimits): Gate {
  const trustProxyHops = ctx.config.trustProxyHops
  return {
    async pass(req, res, routeScope, findKey) {
      const secret = bearer(req.headers.authorization)
      const auth = secret ? await authenticate(ctx, secret, findKey) : await sessionAuth(ctx, req)
      if (!auth) {
        const state = await limits.consume(`ip:${clientAddress(req, trustProxyHops) || 'unknown'}`)
        setRateLimitHeaders(res, state)
        throw state.allowed ? unauthorized() : rateLimited(state.reset)
      }
      const state = await limits.consume(`key:${auth.keyId}`, auth.rateLimitPerMinute ?? limits.defaultLimit)
      setRateLimitHeaders(res, state)
      if (!state.allowed) throw rateLimited(state.reset)
      const problem = accessProblem(auth, routeScope)
      if (problem) throw problem
      return auth
    },
  }
}
