import type { Kysely } from 'kysely'

// Frozen: migrations never import application code.
// DESIGN §14's password lockout, shared by every process on the database (it was kept in each
// process's memory, so N workers allowed N × 10 tries). One row per code and client address,
// keyed by an HMAC of both under the visitor secret (never the address): the times of the
// tries counted against it (wrong ones, and ones still being checked), oldest first, at most
// 10. Rows whose newest try is over 15 minutes old are removed by housekeeping.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('password_lockouts')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('tries', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('password_lockouts').execute()
}
