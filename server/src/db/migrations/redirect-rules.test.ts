import SqliteDatabase from 'better-sqlite3'
import { Kysely, Migrator, SqliteDialect } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import type { Database } from '../schema.js'
import { migrations } from './index.js'

describe('the redirect rules migration', () => {
  let db: Kysely<Database>
  afterEach(() => db.destroy())

  it('upgrades a database that holds codes: every new field unset, no scan reserved', async () => {
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SqliteDatabase(':memory:') }) })
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo('2026_11_24_1210_unique_external_id')).error).toBeUndefined()
    const now = '2026-11-25T11:00:00.000Z'
    await db
      .insertInto('accounts')
      .values({ id: 'acc', name: 'a', plan: 'pro', subscription_status: 'active', created_at: now })
      .execute()
    await db
      .insertInto('qr_codes')
      .values({
        id: 'old',
        account_id: 'acc',
        name: 'old',
        type: 'dynamic',
        content_type: 'url',
        content: 'https://example.com',
        target_url: 'https://example.com',
        short_code: 'aZ3kP9q',
        is_active: 1,
        total_scans: 7,
        created_at: now,
        updated_at: now,
      })
      .execute()

    expect((await migrator.migrateToLatest()).error).toBeUndefined()
    const old = await db.selectFrom('qr_codes').selectAll().where('id', '=', 'old').executeTakeFirstOrThrow()
    expect(old).toMatchObject({
      rules: null,
      expires_at: null,
      expired_url: null,
      max_scans: null,
      after_limit_url: null,
      scans_reserved: 0,
      password_hash: null,
      utm: null,
      forward_query: 0,
      total_scans: 7,
    })

    // And back down: the columns go, the code stays.
    expect((await migrator.migrateTo('2026_11_24_1210_unique_external_id')).error).toBeUndefined()
    const down = await db.selectFrom('qr_codes').selectAll().where('id', '=', 'old').executeTakeFirstOrThrow()
    expect(down).not.toHaveProperty('scans_reserved')
    expect(down).toMatchObject({ total_scans: 7 })
  })
})
