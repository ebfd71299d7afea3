import { sql } from 'kysely'
import type { Db, Dialect } from '../../db/database.js'
import type { HotLookup, HotLookups } from '../../db/hot-lookup.js'
import type { Plan, SubscriptionStatus } from '../accounts/accounts.repository.js'
import { type RedirectSettings, toRedirectSettings } from '../qr-codes/redirect-settings.js'

/** What a short link needs to decide: the code's state, its rules and limits, and its account's subscription. */
export interface RedirectTarget extends RedirectSettings {
  qrCodeId: string
  type: string
  targetUrl: string | null
  isActive: boolean
  isDeleted: boolean
  plan: Plan
  subscriptionStatus: SubscriptionStatus
  /** `expiresAt` as epoch milliseconds, parsed once per lookup. */
  expiresAtMs: number | null
}

type Row = Parameters<typeof toRedirectSettings>[0] & {
  id: string
  type: string
  target_url: string | null
  is_active: number
  deleted_at: string | null
  plan: string
  subscription_status: string
}

function toRedirectTarget(row: Row): RedirectTarget {
  const settings = toRedirectSettings(row)
  return {
    qrCodeId: row.id,
    type: row.type,
    targetUrl: row.target_url,
    isActive: Boolean(row.is_active),
    isDeleted: row.deleted_at !== null,
    plan: row.plan as Plan,
    subscriptionStatus: row.subscription_status as SubscriptionStatus,
    ...settings,
    expiresAtMs: settings.expiresAt === null ? null : Date.parse(settings.expiresAt),
  }
}

/** Deleted codes are included on purpose: they answer 410, not 404. */
function findQuery(db: Db, shortCode: string) {
  return db
    .selectFrom('qr_codes')
    .innerJoin('accounts', 'accounts.id', 'qr_codes.account_id')
    .select([
      'qr_codes.id',
      'qr_codes.type',
      'qr_codes.target_url',
      'qr_codes.is_active',
      'qr_codes.deleted_at',
      'qr_codes.rules',
      'qr_codes.expires_at',
      'qr_codes.expired_url',
      'qr_codes.max_scans',
      'qr_codes.after_limit_url',
      'qr_codes.scans_reserved',
      'qr_codes.password_hash',
      'qr_codes.utm',
      'qr_codes.forward_query',
      'accounts.plan',
      'accounts.subscription_status',
    ])
    .where('qr_codes.short_code', '=', shortCode)
}

/**
 * The short link's code and account, by the query above: on the hot path's lookups (the
 * reader on a SQLite file, see db/hot-lookup.ts), so a PATCHed target applies to the very next scan.
 */
export function createRedirectLookup(db: Db, lookups: HotLookups): HotLookup<[string], RedirectTarget> {
  return lookups.lookup((shortCode: string) => findQuery(db, shortCode), toRedirectTarget)
}

/**
 * DESIGN §14's exact scan limit: takes one of the code's scans in one conditional UPDATE, so
 * of any number of concurrent scans, in any number of processes sharing the database, exactly
 * `max_scans` succeed (PostgreSQL re-checks the condition on the row it waited for; SQLite has
 * one writer at a time). Undefined when no scan is left (or the limit was cleared meanwhile).
 */
export async function reserveScan(
  db: Db,
  qrCodeId: string,
): Promise<{ reserved: number; maxScans: number } | undefined> {
  const row = await db
    .updateTable('qr_codes')
    .set({ scans_reserved: sql`scans_reserved + 1` })
    .where('id', '=', qrCodeId)
    .where('max_scans', 'is not', null)
    .whereRef('scans_reserved', '<', 'max_scans')
    .returning(['scans_reserved', 'max_scans'])
    .executeTakeFirst()
  return row && { reserved: Number(row.scans_reserved), maxScans: Number(row.max_scans) }
}

export interface ScanTaken {
  reserved: number
  maxScans: number
}

/**
 * `reserveScan` for `count` scans of one code at once, inside the caller's transaction: the
 * row is read (locked on PostgreSQL) and advanced by as many as are left, at most `count`.
 * Answers the scans taken, in order; fewer than `count` (or none) once the limit is reached.
 */
export async function reserveScans(
  trx: Db,
  dialect: Dialect,
  qrCodeId: string,
  count: number,
): Promise<ScanTaken[]> {
  const query = trx
    .selectFrom('qr_codes')
    .select(['scans_reserved', 'max_scans'])
    .where('id', '=', qrCodeId)
    .where('max_scans', 'is not', null)
  const row = await (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst()
  if (!row || row.max_scans === null) return []
  const reserved = Number(row.scans_reserved)
  const maxScans = Number(row.max_scans)
  const granted = Math.max(0, Math.min(count, maxScans - reserved))
  if (granted === 0) return []
  await trx
    .updateTable('qr_codes')
    .set({ scans_reserved: reserved + granted })
    .where('id', '=', qrCodeId)
    .execute()
  return Array.from({ length: granted }, (_, i) => ({ reserved: reserved + i + 1, maxScans }))
}

/**
 * The times of the tries counted against a password lockout key, its row created if absent
 * and locked until the transaction ends (PostgreSQL's upsert takes the row lock; SQLite writes
 * one transaction at a time), so two processes cannot both count the tenth try.
 */
export async function lockTries(db: Db, key: string, expiresAt: string): Promise<number[]> {
  const row = await db
    .insertInto('password_lockouts')
    .values({ key, tries: '[]', expires_at: expiresAt })
    .onConflict((oc) => oc.column('key').doUpdateSet((eb) => ({ tries: eb.ref('password_lockouts.tries') })))
    .returning('tries')
    .executeTakeFirstOrThrow()
  return JSON.parse(row.tries) as number[]
}

export async function setTries(db: Db, key: string, tries: number[], expiresAt: string): Promise<void> {
  await db
    .updateTable('password_lockouts')
    .set({ tries: JSON.stringify(tries), expires_at: expiresAt })
    .where('key', '=', key)
    .execute()
}

export async function clearTries(db: Db, key: string): Promise<void> {
  await db.deleteFrom('password_lockouts').where('key', '=', key).execute()
}

export async function purgeLockoutsBefore(db: Db, before: string): Promise<number> {
  const result = await db.deleteFrom('password_lockouts').where('expires_at', '<', before).executeTakeFirst()
  return Number(result.numDeletedRows)
}
