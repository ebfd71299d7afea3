import type { Kysely } from 'kysely'

// Frozen: migrations never import application code.
// DESIGN §19: dashboard sessions. The id the browser holds in its cookie is stored only as its
// SHA-256 (`id_hash`), like API keys; a session acts as the key it was opened with, so it dies
// with that key (the gate joins api_keys and checks revoked_at) and with the key's row.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('api_key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    // The CSRF token of the session: `X-CSRF-Token` (or the form field `csrfToken`) must equal it.
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    // Refreshed at most about once a minute; the idle lifetime counts from here.
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('sessions_api_key_idx').on('sessions').column('api_key_id').execute()
  await db.schema.createIndex('sessions_last_seen_idx').on('sessions').column('last_seen_at').execute()
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sessions').execute()
}
