import type { ApiKey, Scope } from '@qrctl/contract'
import type { Selectable } from 'kysely'
import type { Db } from '../../db/database.js'
import type { ApiKeysTable } from '../../db/schema.js'
import type { Plan, SubscriptionStatus } from '../accounts/accounts.repository.js'

export function toApiKey(row: Selectable<ApiKeysTable>): ApiKey {
  return {
    id: row.id,
    name: row.name,
    environment: row.environment,
    scope: row.scope as Scope,
    prefix: row.prefix,
    lastFour: row.last_four,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
  }
}

export interface NewApiKey {
  id: string
  accountId: string
  name: string
  environment: string | null
  scope: Scope
  keyHash: string
  prefix: string
  lastFour: string
  createdAt: string
}

export async function insertApiKey(db: Db, key: NewApiKey): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({
      id: key.id,
      account_id: key.accountId,
      name: key.name,
      environment: key.environment,
      scope: key.scope,
      key_hash: key.keyHash,
      prefix: key.prefix,
      last_four: key.lastFour,
      created_at: key.createdAt,
    })
    .execute()
}

export interface KeyWithAccount {
  keyId: string
  accountId: string
  scope: Scope
  expiresAt: string | null
  lastUsedAt: string | null
  plan: Plan
  subscriptionStatus: SubscriptionStatus
  rateLimitPerMinute: number | null
}

/** The live key with this hash and its account; revoked keys are not found. */
export function keyByHashQuery(db: Db, keyHash: string) {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .select([
      'k.id as keyId',
      'k.account_id as accountId',
      'k.scope',
      'k.expires_at as expiresAt',
      'k.last_used_at as lastUsedAt',
      'a.plan',
      'a.subscription_status as subscriptionStatus',
      'a.rate_limit_per_minute as rateLimitPerMinute',
    ])
    .where('k.key_hash', '=', keyHash)
    .where('k.revoked_at', 'is', null)
}

export type KeyRow = NonNullable<Awaited<ReturnType<ReturnType<typeof keyByHashQuery>['executeTakeFirst']>>>

export function toKeyWithAccount(row: KeyRow): KeyWithAccount {
  return {
    ...row,
    scope: row.scope as Scope,
    plan: row.plan as Plan,
    subscriptionStatus: row.subscriptionStatus as SubscriptionStatus,
  }
}

export async function findKeyByHash(db: Db, keyHash: string): Promise<KeyWithAccount | undefined> {
  const row = await keyByHashQuery(db, keyHash).executeTakeFirst()
  return row && toKeyWithAccount(row)
}

/** Keys that still work at `now` (not revoked, not past a rotation's grace period). */
export async function listLiveKeys(db: Db, accountId: string, now: string): Promise<ApiKey[]> {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute()
  return rows.map(toApiKey)
}

export async function findLiveKey(db: Db, accountId: string, id: string, now: string) {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst()
}

export async function revokeKey(db: Db, accountId: string, id: string, now: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute()
}

export async function expireKey(db: Db, accountId: string, id: string, expiresAt: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ expires_at: expiresAt })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute()
}

export async function touchKey(db: Db, id: string, now: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute()
}
