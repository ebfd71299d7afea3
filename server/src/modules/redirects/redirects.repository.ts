import type { Db } from '../../db/database.js'
import type { HotLookup, HotLookups } from '../../db/hot-lookup.js'
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

/**
 * The short link's code and account, by the query above: on the hot path's lookups (the
 * reader on a SQLite file, see db/hot-lookup.ts), so a PATCHed target applies to the very next scan.
 */
export function createRedirectLookup(db: Db, lookups: HotLookups): HotLookup<[string], RedirectTarget> {
  return lookups.lookup((shortCode: string) => findQuery(db, shortCode), toRedirectTarget)
}
