import type { Scope } from '@qrctl/contract'
import type { Db } from '../../db/database.js'
import type { Plan, SubscriptionStatus } from '../accounts/accounts.repository.js'

export interface NewSession {
  idHash: string
  accountId: string
  apiKeyId: string
  csrfToken: string
  createdAt: string
}

export async function insertSession(db: Db, session: NewSession): Promise<void> {
  await db
    .insertInto('sessions')
    .values({
      id_hash: session.idHash,
      account_id: session.accountId,
      api_key_id: session.apiKeyId,
      csrf_token: session.csrfToken,
      created_at: session.createdAt,
      last_seen_at: session.createdAt,
    })
    .execute()
}

/** A session with what the gate needs of its key and account. */
export interface SessionWithKey {
  accountId: string
  keyId: string
  csrfToken: string
  createdAt: string
  lastSeenAt: string
  scope: Scope
  keyExpiresAt: string | null
  keyLastUsedAt: string | null
  plan: Plan
  subscriptionStatus: SubscriptionStatus
  rateLimitPerMinute: number | null
}

/** The session with this id hash, while its key is not revoked; lifetimes are the service's to check. */
export async function findSessionByHash(db: Db, idHash: string): Promise<SessionWithKey | undefined> {
  const row = await db
    .selectFrom('sessions as s')
    .innerJoin('api_keys as k', 'k.id', 's.api_key_id')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .select([
      'k.account_id as accountId',
      'k.id as keyId',
      's.csrf_token as csrfToken',
      's.created_at as createdAt',
      's.last_seen_at as lastSeenAt',
      'k.scope',
      'k.expires_at as keyExpiresAt',
      'k.last_used_at as keyLastUsedAt',
      'a.plan',
      'a.subscription_status as subscriptionStatus',
      'a.rate_limit_per_minute as rateLimitPerMinute',
    ])
    .where('s.id_hash', '=', idHash)
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst()
  return (
    row && {
      ...row,
      scope: row.scope as Scope,
      plan: row.plan as Plan,
      subscriptionStatus: row.subscriptionStatus as SubscriptionStatus,
    }
  )
}

export async function touchSession(db: Db, idHash: string, now: string): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: now }).where('id_hash', '=', idHash).execute()
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute()
}

/**
 * Sessions that can no longer work: idle since before `idleBefore`, begun before `createdBefore`,
 * or acting for a revoked key. Returns how many were removed.
 */
export async function purgeSessions(db: Db, idleBefore: string, createdBefore: string): Promise<number> {
  const result = await db
    .deleteFrom('sessions')
    .where((eb) =>
      eb.or([
        eb('last_seen_at', '<', idleBefore),
        eb('created_at', '<', createdBefore),
        eb('api_key_id', 'in', eb.selectFrom('api_keys').select('id').where('revoked_at', 'is not', null)),
      ]),
    )
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

export async function insertLoginLink(
  db: Db,
  link: { tokenHash: string; accountId: string; createdAt: string; expiresAt: string },
): Promise<void> {
  await db
    .insertInto('login_links')
    .values({
      token_hash: link.tokenHash,
      account_id: link.accountId,
      created_at: link.createdAt,
      expires_at: link.expiresAt,
    })
    .execute()
}

/**
 * Marks the link used, if it is unused and unexpired at `now`, and names its account. One
 * conditional update: of two concurrent uses only one changes the row (SQLite writes one at a
 * time; PostgreSQL re-checks `used_at is null` after the first update's lock is released).
 */
export async function consumeLoginLink(db: Db, tokenHash: string, now: string): Promise<string | undefined> {
  const row = await db
    .updateTable('login_links')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('account_id')
    .executeTakeFirst()
  return row?.account_id
}

/** Links expired before `before`, used or not. */
export async function purgeLoginLinks(db: Db, before: string): Promise<number> {
  const result = await db.deleteFrom('login_links').where('expires_at', '<', before).executeTakeFirst()
  return Number(result.numDeletedRows)
}
