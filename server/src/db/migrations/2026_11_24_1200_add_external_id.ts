import type { Kysely } from 'kysely'

// Frozen: migrations never import application code.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('qr_codes').addColumn('external_id', 'text').execute()
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('qr_codes').dropColumn('external_id').execute()
}
