import { type Kysely, sql } from 'kysely'

// Frozen: migrations never import application code.
// `isActive` and `type` filters (DESIGN §17): the list's total is counted from this index alone,
// instead of visiting every live row of the account.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('qr_codes_account_active_type_idx')
    .on('qr_codes')
    .columns(['account_id', 'is_active', 'type'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute()
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('qr_codes_account_active_type_idx').execute()
}
