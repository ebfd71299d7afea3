import type { Kysely } from 'kysely'

// Frozen: migrations never import application code.
// One row per scan buffer (one per server process start): the sequence number of the last scan
// it has stored. A batch whose commit was cut off (the connection lost after COMMIT reached the
// database) is retried; its transaction reads this row first, locked, and skips the scans it
// already holds, so no scan is stored twice. Rows no buffer has written to for a week go.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('scan_writers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('through_seq', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('scan_writers').execute()
}
