import type { Db } from '../../db/database.js'
import { createSnapshot, prepareLookup, type Reader } from '../../db/reader.js'
import type { Plan, SubscriptionStatus } from '../accounts/accounts.repository.js'

/** What a short link needs to decide: the code's state and its account's subscription. */
export interface RedirectTarget {
  qrCodeId: string
  type: string
  targetUrl: string | null
  isActive: boolean
  isDeleted: boolean
  plan: Plan
  subscriptionStatus: SubscriptionStatus
}

interface Row {
  id: string
  type: string
  target_url: string | null
  is_active: number
  deleted_at: string | null
  plan: string
  subscription_status: string
}

function toRedirectTarget(row: Row): RedirectTarget {
  return {
    qrCodeId: row.id,
    type: row.type,
    targetUrl: row.target_url,
    isActive: Boolean(row.is_active),
    isDeleted: row.deleted_at !== null,
    plan: row.plan as Plan,
    subscriptionStatus: row.subscription_status as SubscriptionStatus,
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
      'accounts.plan',
      'accounts.subscription_status',
    ])
    .where('qr_codes.short_code', '=', shortCode)
}

export interface RedirectLookup {
  /** Synchronous where the driver allows, so the hot path skips a promise. */
  find(shortCode: string): RedirectTarget | undefined | Promise<RedirectTarget | undefined>
}

/**
 * Short links are the busiest path, so on a SQLite file the lookup runs on the read-only
 * reader (see db/reader.ts) with its statement prepared once, and its answers are kept until
 * the database changes: a PATCHed target applies to the very next scan. PostgreSQL (and an
 * in-memory SQLite) go through Kysely.
 */
export function createRedirectLookup(db: Db, reader: Reader | undefined): RedirectLookup {
  if (!reader) {
    return {
      find: async (shortCode) => {
        const row = await findQuery(db, shortCode).executeTakeFirst()
        return row && toRedirectTarget(row)
      },
    }
  }
  const findRow = prepareLookup(reader, (shortCode: string) => findQuery(db, shortCode))
  const snapshot = createSnapshot(reader)
  const find = snapshot.memo((shortCode: string) => {
    const row = findRow(shortCode)
    return row && toRedirectTarget(row)
  })
  return {
    find: (shortCode) => {
      snapshot.refresh()
      return find(shortCode)
    },
  }
}
