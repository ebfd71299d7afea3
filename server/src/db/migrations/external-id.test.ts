import SqliteDatabase from 'better-sqlite3'
import { Kysely, Migrator, SqliteDialect } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import type { Database } from '../schema.js'
import { migrations } from './index.js'

describe('the externalId migrations', () => {
  let db: Kysely<Database>
  afterEach(() => db.destroy())

  it('upgrade a database that holds codes, and allow one live code per account and externalId', async () => {
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SqliteDatabase(':memory:') }) })
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo('2026_11_22_1100_create_scans')).error).toBeUndefined()
    const now = '2026-11-24T12:00:00.000Z'
    await db
      .insertInto('accounts')
      .values({ id: 'acc', name: 'a', plan: 'pro', subscription_status: 'active', created_at: now })
      .execute()
    const code = (id: string) => ({
      id,
      account_id: 'acc',
      name: id,
      type: 'static',
      content_type: 'text',
      content: 'x',
      is_active: 1,
      created_at: now,
      updated_at: now,
    })
    await db.insertInto('qr_codes').values(code('old')).execute()

    expect((await migrator.migrateToLatest()).error).toBeUndefined()
    const old = await db.selectFrom('qr_codes').selectAll().where('id', '=', 'old').executeTakeFirstOrThrow()
    expect(old.external_id).toBeNull()

    await db
      .insertInto('qr_codes')
      .values({ ...code('a'), external_id: 'k' })
      .execute()
    await expect(
      db
        .insertInto('qr_codes')
        .values({ ...code('b'), external_id: 'k' })
        .execute(),
    ).rejects.toThrow(/UNIQUE/)
    // Deleted codes do not hold their externalId.
    await db.updateTable('qr_codes').set({ deleted_at: now }).where('id', '=', 'a').execute()
    await db
      .insertInto('qr_codes')
      .values({ ...code('b'), external_id: 'k' })
      .execute()
    // Codes without one never collide.
    await db.insertInto('qr_codes').values(code('c')).execute()
    expect((await migrator.migrateDown()).error).toBeUndefined()
  })
})
