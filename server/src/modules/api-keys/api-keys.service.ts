import { API_KEY_PATTERN, type ApiKey, type ApiKeyWithSecret, type Scope } from '@qrctl/contract'
import type { Ctx } from '../../context.js'
import { notFound } from '../../errors.js'
import { sha256Hex } from '../../lib/ids.js'
import type { Plan, SubscriptionStatus } from '../accounts/accounts.repository.js'
import * as repo from './api-keys.repository.js'

/** Who is calling, resolved from the bearer key. */
export interface Auth {
  accountId: string
  keyId: string
  scope: Scope
  plan: Plan
  subscriptionStatus: SubscriptionStatus
  rateLimitPerMinute: number | null
}

/** `lastUsedAt` is written at most once a minute per key, so reads do not become writes. */
const TOUCH_INTERVAL_MS = 60_000

export async function createKey(
  ctx: Ctx,
  accountId: string,
  input: { name: string; environment?: string | null; scope: Scope },
): Promise<ApiKeyWithSecret> {
  const secret = ctx.ids.apiKeySecret()
  const key: repo.NewApiKey = {
    id: ctx.ids.uuid(),
    accountId,
    name: input.name,
    environment: input.environment ?? null,
    scope: input.scope,
    keyHash: sha256Hex(secret),
    prefix: secret.slice(0, 8),
    lastFour: secret.slice(-4),
    createdAt: ctx.clock.now().toISOString(),
  }
  await repo.insertApiKey(ctx.db, key)
  return {
    id: key.id,
    name: key.name,
    environment: key.environment,
    scope: key.scope,
    prefix: key.prefix,
    lastFour: key.lastFour,
    createdAt: key.createdAt,
    lastUsedAt: null,
    expiresAt: null,
    secret,
  }
}

/** Finds the live key with a hash: the repository's query, or the same query on a hot path's reader. */
export type FindKeyByHash = (
  keyHash: string,
) => repo.KeyWithAccount | undefined | Promise<repo.KeyWithAccount | undefined>

/** The caller behind a bearer secret, or undefined for a malformed, unknown, revoked or expired key. */
export async function authenticate(
  ctx: Ctx,
  secret: string,
  findKeyByHash: FindKeyByHash = (keyHash) => repo.findKeyByHash(ctx.db, keyHash),
): Promise<Auth | undefined> {
  if (!API_KEY_PATTERN.test(secret)) return undefined
  const found = await findKeyByHash(sha256Hex(secret))
  if (!found) return undefined
  const now = ctx.clock.now()
  if (found.expiresAt && found.expiresAt <= now.toISOString()) return undefined
  noteKeyUse(ctx, found.keyId, found.lastUsedAt, now)
  return authOf(found)
}

/** What a request may do as the key's caller, picked from a key found with its account. */
export function authOf(found: Auth): Auth {
  return {
    accountId: found.accountId,
    keyId: found.keyId,
    scope: found.scope,
    plan: found.plan,
    subscriptionStatus: found.subscriptionStatus,
    rateLimitPerMinute: found.rateLimitPerMinute,
  }
}

/**
 * Records a use of the key (a bearer request, a dashboard session's refresh): `lastUsedAt` is
 * written when it is older than TOUCH_INTERVAL_MS, and not awaited by the request: a lost
 * update is harmless, a slow one is not.
 */
export function noteKeyUse(
  ctx: Pick<Ctx, 'db' | 'logger'>,
  keyId: string,
  lastUsedAt: string | null,
  now: Date,
): void {
  if (lastUsedAt && now.getTime() - Date.parse(lastUsedAt) < TOUCH_INTERVAL_MS) return
  repo.touchKey(ctx.db, keyId, now.toISOString()).catch((error: unknown) => {
    ctx.logger.warn({ err: error, keyId }, 'could not update lastUsedAt')
  })
}

export function listKeys(ctx: Ctx, accountId: string): Promise<ApiKey[]> {
  return repo.listLiveKeys(ctx.db, accountId, ctx.clock.now().toISOString())
}

export async function revokeKey(ctx: Ctx, accountId: string, id: string): Promise<void> {
  const now = ctx.clock.now().toISOString()
  const key = await repo.findLiveKey(ctx.db, accountId, id, now)
  if (!key) throw notFound('api key', id)
  await repo.revokeKey(ctx.db, accountId, id, now)
}

/** A new key with the same name, scope and environment; the old one works for the grace period. */
export async function rotateKey(
  ctx: Ctx,
  accountId: string,
  id: string,
  gracePeriodSeconds: number,
): Promise<ApiKeyWithSecret> {
  const now = ctx.clock.now()
  const old = await repo.findLiveKey(ctx.db, accountId, id, now.toISOString())
  if (!old) throw notFound('api key', id)
  const fresh = await createKey(ctx, accountId, {
    name: old.name,
    environment: old.environment,
    scope: old.scope as Scope,
  })
  if (gracePeriodSeconds === 0) await repo.revokeKey(ctx.db, accountId, id, now.toISOString())
  else
    await repo.expireKey(
      ctx.db,
      accountId,
      id,
      new Date(now.getTime() + gracePeriodSeconds * 1000).toISOString(),
    )
  return fresh
}
