import type { Kysely } from 'kysely'

// Frozen: migrations never import application code.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    // JSON arrays as text: the event types (or ["*"]) and the code filter (null = every code).
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('qr_code_ids', 'text')
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('disabled_reason', 'text')
    .addColumn('secret', 'text', (c) => c.notNull())
    // After a rotation the old secret signs too, until previous_secret_until (DESIGN §15).
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_until', 'text')
    // Deliveries in a row that ended failed; WEBHOOK_FAILURE_LIMIT of them disable the webhook.
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('webhooks_account_list_idx')
    .on('webhooks')
    .columns(['account_id', 'created_at', 'id'])
    .execute()
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhooks').execute()
}
