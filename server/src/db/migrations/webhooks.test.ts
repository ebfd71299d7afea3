import SqliteDatabase from 'better-sqlite3'
import { Kysely, Migrator, SqliteDialect } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import type { Database } from '../schema.js'
import { migrations } from './index.js'

describe('the webhook migrations', () => {
  let db: Kysely<Database>
  afterEach(() => db.destroy())

  it('upgrade a v1 database that holds codes, and go down again', async () => {
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SqliteDatabase(':memory:') }) })
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo('2026_11_24_1210_unique_external_id')).error).toBeUndefined()
    const now = '2026-11-24T12:00:00.000Z'
    await db
      .insertInto('accounts')
      .values({ id: 'acc', name: 'a', plan: 'pro', subscription_status: 'active', created_at: now })
      .execute()

    expect((await migrator.migrateToLatest()).error).toBeUndefined()
    await db
      .insertInto('webhooks')
      .values({
        id: 'w',
        account_id: 'acc',
        url: 'https://hooks.example.com/',
        description: null,
        events: '["*"]',
        qr_code_ids: null,
        is_active: 1,
        disabled_reason: null,
        secret: 'whsec_x',
        previous_secret: null,
        previous_secret_until: null,
        consecutive_failures: 0,
        created_at: now,
        updated_at: now,
      })
      .execute()
    await db
      .insertInto('webhook_events')
      .values({
        id: 'e',
        account_id: 'acc',
        type: 'webhook.test',
        qr_code_id: null,
        body: '{}',
        is_fanned_out: 0,
        is_bundle: 0,
        created_at: now,
      })
      .execute()
    await db
      .insertInto('webhook_deliveries')
      .values({
        id: 'd',
        webhook_id: 'w',
        event_id: 'e',
        type: 'webhook.test',
        status: 'pending',
        attempts: 0,
        max_attempts: 8,
        next_attempt_at: now,
        created_at: now,
      })
      .execute()
    // Deleting a webhook takes its deliveries with it.
    await db.deleteFrom('webhooks').where('id', '=', 'w').execute()
    expect(await db.selectFrom('webhook_deliveries').selectAll().execute()).toEqual([])

    // Down to the migration before the webhook ones (later migrations go down first).
    expect((await migrator.migrateTo('2026_11_25_1100_add_redirect_rules')).error).toBeUndefined()
    const tables = (await db.introspection.getTables()).map((t) => t.name)
    expect(tables).not.toContain('webhooks')
    expect(tables).toContain('qr_codes')
  })
})
