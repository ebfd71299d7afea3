import { type Kysely, sql } from 'kysely'

// Frozen: migrations never import application code.
// Tag filters at scale (DESIGN §17, issue #19): each tag row carries its code's `deleted_at`, so a
// list filtered by tags alone counts its total, and GET /tags its counts, from this index only,
// instead of visiting every tagged code (docs/performance.md). `deleted_at` is a column of the
// index rather than its condition, as SQLite reads a partial index's rows to test the condition
// again; deleted lists (`deleted_at >= …`) use it too. The repository writes the copy wherever it
// writes the code's `deleted_at`.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('qr_code_tags').addColumn('deleted_at', 'text').execute()
  await sql`update qr_code_tags
    set deleted_at = (select c.deleted_at from qr_codes c where c.id = qr_code_tags.qr_code_id)
    where qr_code_id in (select id from qr_codes where deleted_at is not null)`.execute(db)
  await db.schema
    .createIndex('qr_code_tags_account_tag_deleted_idx')
    .on('qr_code_tags')
    .columns(['account_id', 'tag', 'deleted_at', 'qr_code_id'])
    .execute()
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('qr_code_tags_account_tag_deleted_idx').execute()
  await db.schema.alterTable('qr_code_tags').dropColumn('deleted_at').execute()
}
