import type { Kysely } from 'kysely'

// Frozen: migrations never import application code.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('subscription_status', 'text', (c) => c.notNull())
    .addColumn('rate_limit_per_minute', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('environment', 'text')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('last_four', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute()
  await db.schema.createIndex('api_keys_account_idx').on('api_keys').column('account_id').execute()

  await db.schema
    .createTable('qr_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('target_url', 'text')
    .addColumn('short_code', 'text', (c) => c.unique())
    .addColumn('style', 'text')
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('total_scans', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute()
  await db.schema
    .createIndex('qr_codes_account_list_idx')
    .on('qr_codes')
    .columns(['account_id', 'created_at', 'id'])
    .execute()
  await db.schema.createIndex('qr_codes_deleted_idx').on('qr_codes').column('deleted_at').execute()

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key'])
    .execute()
  await db.schema
    .createIndex('idempotency_keys_created_idx')
    .on('idempotency_keys')
    .column('created_at')
    .execute()

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute()
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['settings', 'idempotency_keys', 'qr_codes', 'api_keys', 'accounts']) {
    await db.schema.dropTable(table).execute()
  }
}
