import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { Ctx } from '../../context.js'
import { notFound } from '../../errors.js'
import { sha256Hex } from '../../lib/ids.js'
import * as accountsRepo from '../accounts/accounts.repository.js'
import { type Auth, authenticate, authOf, createKey, noteKeyUse } from '../api-keys/api-keys.service.js'
import { TOKEN_PATTERN } from './session-cookie.js'
import * as repo from './sessions.repository.js'

/** A one-time link signs in within this long (DESIGN §19). */
export const LOGIN_LINK_MINUTES = 15

/** What the browser is given when a session opens: the cookie's value and the page's CSRF token. */
export interface OpenedSession {
  sessionId: string
  csrfToken: string
}

/** A live session: who it acts as (exactly its key) and its CSRF token. */
export interface LiveSession {
  auth: Auth
  csrfToken: string
}

/** 256 random bits, URL- and cookie-safe. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url')
}

async function openSession(ctx: Ctx, accountId: string, keyId: string): Promise<OpenedSession> {
  const opened = { sessionId: randomToken(), csrfToken: randomToken() }
  await repo.insertSession(ctx.db, {
    idHash: sha256Hex(opened.sessionId),
    accountId,
    apiKeyId: keyId,
    csrfToken: opened.csrfToken,
    createdAt: ctx.clock.now().toISOString(),
  })
  return opened
}

/** A session for the key with this secret, or undefined for a malformed, unknown, revoked or expired key. */
export async function signInWithKey(ctx: Ctx, secret: string): Promise<OpenedSession | undefined> {
  const auth = await authenticate(ctx, secret)
  return auth && openSession(ctx, auth.accountId, auth.keyId)
}

/**
 * Consumes a one-time link: a new read_write key named "login link" for its account and a
 * session with it, in one transaction, or undefined for a used, expired or unknown token.
 */
export async function signInWithLink(ctx: Ctx, token: string): Promise<OpenedSession | undefined> {
  if (!TOKEN_PATTERN.test(token)) return undefined
  return ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock.now().toISOString()
    const accountId = await repo.consumeLoginLink(trx, sha256Hex(token), now)
    if (!accountId) return undefined
    const inTrx = { ...ctx, db: trx }
    const key = await createKey(inTrx, accountId, { name: 'login link', scope: 'read_write' })
    return openSession(inTrx, accountId, key.id)
  })
}

/** The idle lifetime is kept within a quarter of itself, and last-seen written at most once a minute. */
function touchIntervalMs(idleSeconds: number): number {
  return Math.min(60_000, (idleSeconds * 1000) / 4)
}

/**
 * The live session behind a cookie's id: its key not revoked or expired, used within
 * SESSION_IDLE_SECONDS, begun within SESSION_MAX_SECONDS. Refreshes last-seen (and the key's
 * lastUsedAt) at most about once a minute, to keep writes down.
 */
export async function findLiveSession(ctx: Ctx, sessionId: string): Promise<LiveSession | undefined> {
  if (!TOKEN_PATTERN.test(sessionId)) return undefined
  const idHash = sha256Hex(sessionId)
  const found = await repo.findSessionByHash(ctx.db, idHash)
  if (!found) return undefined
  const now = ctx.clock.now()
  const { sessionIdleSeconds, sessionMaxSeconds } = ctx.config
  if (found.keyExpiresAt && found.keyExpiresAt <= now.toISOString()) return undefined
  const lastSeen = Date.parse(found.lastSeenAt)
  if (now.getTime() >= lastSeen + sessionIdleSeconds * 1000) return undefined
  if (now.getTime() >= Date.parse(found.createdAt) + sessionMaxSeconds * 1000) return undefined
  if (now.getTime() - lastSeen >= touchIntervalMs(sessionIdleSeconds)) {
    const at = now.toISOString()
    // Awaited (about once a minute per session), so the next request sees it; a failed refresh
    // costs at most one interval of the idle lifetime, never the request.
    await repo.touchSession(ctx.db, idHash, at).catch((error: unknown) => {
      ctx.logger.warn({ err: error, keyId: found.keyId }, 'could not refresh a session')
    })
    noteKeyUse(ctx, found.keyId, found.keyLastUsedAt, now)
  }
  return { csrfToken: found.csrfToken, auth: authOf(found) }
}

/** Constant-time comparison of a presented CSRF token with the session's. */
export function isCsrfTokenOf(session: LiveSession, presented: unknown): boolean {
  if (typeof presented !== 'string' || presented.length !== session.csrfToken.length) return false
  return timingSafeEqual(Buffer.from(presented), Buffer.from(session.csrfToken))
}

/** The caller behind a session cookie, only when the request also carries the session's CSRF token. */
export async function authenticateSession(
  ctx: Ctx,
  sessionId: string,
  csrfToken: string,
): Promise<Auth | undefined> {
  if (!TOKEN_PATTERN.test(csrfToken)) return undefined
  const session = await findLiveSession(ctx, sessionId)
  return session && isCsrfTokenOf(session, csrfToken) ? session.auth : undefined
}

export async function endSession(ctx: Ctx, sessionId: string): Promise<void> {
  if (TOKEN_PATTERN.test(sessionId)) await repo.deleteSession(ctx.db, sha256Hex(sessionId))
}

/** `{PUBLIC_BASE_URL}/app/login?token=…`, valid for LOGIN_LINK_MINUTES, once. */
export async function createLoginLink(
  ctx: Ctx,
  accountId: string,
): Promise<{ url: string; expiresAt: string }> {
  if (!(await accountsRepo.findAccount(ctx.db, accountId))) throw notFound('account', accountId)
  const token = randomToken()
  const now = ctx.clock.now()
  const expiresAt = new Date(now.getTime() + LOGIN_LINK_MINUTES * 60_000).toISOString()
  await repo.insertLoginLink(ctx.db, {
    tokenHash: sha256Hex(token),
    accountId,
    createdAt: now.toISOString(),
    expiresAt,
  })
  return { url: `${ctx.config.publicBaseUrl}/app/login?token=${token}`, expiresAt }
}

/** Housekeeping: sessions that can no longer work and links expired over a day ago. */
export async function purgeEndedSessions(ctx: Ctx): Promise<number> {
  const now = ctx.clock.now().getTime()
  const iso = (ms: number) => new Date(ms).toISOString()
  const sessions = await repo.purgeSessions(
    ctx.db,
    iso(now - ctx.config.sessionIdleSeconds * 1000),
    iso(now - ctx.config.sessionMaxSeconds * 1000),
  )
  const links = await repo.purgeLoginLinks(ctx.db, iso(now - 86_400_000))
  return sessions + links
}
