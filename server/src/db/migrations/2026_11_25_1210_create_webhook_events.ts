import type { Kysely } from 'kysely'

// Frozen: migrations never import application code.
// The outbox: one row per event that a webhook wants, written in the transaction of the change
// that caused it. `body` is the JSON body as it is sent. The senders fan each event out to
// the webhooks that want it (one webhook_deliveries row each), then set is_fanned_out.
// A bundle row (is_bundle = 1) holds up to 200 scan.created events of one scan batch and
// account; the fan-out turns it into one row per event and deletes it.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('qr_code_id', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('is_fanned_out', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_bundle', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('webhook_events_fan_out_idx')
    .on('webhook_events')
    .columns(['is_fanned_out', 'created_at'])
    .execute()
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_events').execute()
}
