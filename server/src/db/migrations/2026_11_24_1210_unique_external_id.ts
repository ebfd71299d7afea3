import { type Kysely, sql } from 'kysely'

// Frozen: migrations never import application code.
// An externalId is unique per account among live codes only (DESIGN §5): a partial index, which
// SQLite and PostgreSQL both support. NULLs never collide, so codes without one are unaffected.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('qr_codes_account_external_id_idx')
    .unique()
    .on('qr_codes')
    .columns(['account_id', 'external_id'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute()
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('qr_codes_account_external_id_idx').execute()
}
