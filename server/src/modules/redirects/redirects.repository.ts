import SqliteDatabase from 'better-sqlite3'
import type { Db } from '../../db/database.js'
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
  close(): void
}

/**
 * Short links are the busiest path, so on a SQLite file the lookup gets its own read-only
 * connection with the statement prepared once (the shared Kysely connection prepares every
 * query anew and queues behind batch writes). WAL mode lets it read while scans are written,
 * and it sees every committed change at once, so a PATCHed target applies to the next scan.
 *
 * Answers are also kept until the database changes: `PRAGMA data_version` moves whenever any
 * other connection (this process's writer, an admin command, another process) commits, and
 * reading it costs a third of the lookup. PostgreSQL (and an in-memory SQLite) go through Kysely.
 */
export function createRedirectLookup(db: Db, sqliteFile: string | undefined): RedirectLookup {
  if (!sqliteFile || sqliteFile === ':memory:') {
    return {
      find: async (shortCode) => {
        const row = await findQuery(db, shortCode).executeTakeFirst()
        return row && toRedirectTarget(row)
      },
      close: () => {},
    }
  }
  const reader = new SqliteDatabase(sqliteFile, { readonly: true, fileMustExist: true })
  reader.pragma('busy_timeout = 5000')
  const statement = reader.prepare<[string], Row>(findQuery(db, '').compile().sql)
  const dataVersion = reader.prepare<[], number>('pragma data_version').pluck()
  const answers = new Map<string, RedirectTarget | undefined>()
  let version: number | undefined
  return {
    find: (shortCode) => {
      const current = dataVersion.get()
      if (current !== version) {
        answers.clear()
        version = current
      }
      if (answers.has(shortCode)) return answers.get(shortCode)
      const row = statement.get(shortCode)
      const target = row && toRedirectTarget(row)
      if (answers.size >= 10_000) answers.clear()
      answers.set(shortCode, target)
      return target
    },
    close: () => reader.close(),
  }
}
