import type { Kysely } from 'kysely'

// Frozen: migrations never import application code.
// DESIGN §19: one-time sign-in links (`qrctl-server admin login-link`). The token is stored only
// as its SHA-256; `used_at` is set by the one update that consumes it, so two uses cannot both win.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('login_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute()
  await db.schema.createIndex('login_links_expires_idx').on('login_links').column('expires_at').execute()
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('login_links').execute()
}
