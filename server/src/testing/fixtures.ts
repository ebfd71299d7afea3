import pg from 'pg'
import { type DatabaseHandle, type Db, openDatabase } from '../db/database.js'

/*
 * Rows the unit tests start from, written once: an account and its dynamic codes with only the
 * columns a code needs (the rest have defaults). Not part of the build (tsconfig.build.json).
 */

/** An active pro account. */
export async function insertAccount(db: Db, id: string, createdAt: string): Promise<void> {
  await db
    .insertInto('accounts')
    .values({ id, name: id, plan: 'pro', subscription_status: 'active', created_at: createdAt })
    .execute()
}

/**
 * One dynamic code per short code, to https://example.com/, each with the id `code-` and the
 * short code's first letter (`aaaaaaa` is `code-a`).
 */
export async function insertDynamicCodes(
  db: Db,
  accountId: string,
  shortCodes: string[],
  createdAt: string,
): Promise<void> {
  await db
    .insertInto('qr_codes')
    .values(
      shortCodes.map((shortCode) => ({
        id: `code-${shortCode[0]}`,
        account_id: accountId,
        name: shortCode,
        type: 'dynamic',
        content_type: 'url',
        content: 'https://example.com/',
        short_code: shortCode,
        is_active: 1,
        created_at: createdAt,
        updated_at: createdAt,
      })),
    )
    .execute()
}

/** The dialects a unit test runs on: SQLite always, PostgreSQL too when TEST_DATABASE_URL is set. */
export const testDialects = process.env.TEST_DATABASE_URL
  ? (['sqlite', 'postgres'] as const)
  : (['sqlite'] as const)

/**
 * A fresh PostgreSQL database on TEST_DATABASE_URL's server, named `qrctl_<prefix>_…`, and a
 * `drop` that removes it (call it after closing every connection to it).
 */
export async function createPostgresDatabase(
  prefix: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
  const name = `qrctl_${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(process.env.TEST_DATABASE_URL as string)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE ${name}`)
      await admin.end()
    },
  }
}

/** A fresh, empty database of this dialect (SQLite in memory), opened by the app's `openDatabase`. */
export async function openTestDatabase(
  dialect: (typeof testDialects)[number],
  prefix: string,
): Promise<{ handle: DatabaseHandle; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const handle = openDatabase({ dialect, filename: ':memory:' })
    return { handle, drop: () => handle.close() }
  }
  const database = await createPostgresDatabase(prefix)
  const handle = openDatabase({ dialect, connectionString: database.url })
  return {
    handle,
    drop: async () => {
      await handle.close()
      await database.drop()
    },
  }
}
