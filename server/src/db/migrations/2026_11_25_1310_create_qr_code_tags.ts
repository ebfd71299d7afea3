import type { Kysely } from 'kysely'

// Frozen: migrations never import application code.
// Tags (DESIGN §17, issue #19): one row per code and tag, for the tag filter and GET /tags, and
// the code's sorted tags as JSON in `qr_codes.tags`, so reading a code needs no join.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('qr_codes')
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute()
  await db.schema
    .createTable('qr_code_tags')
    .addColumn('qr_code_id', 'text', (c) => c.notNull().references('qr_codes.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('tag', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('qr_code_tags_pk', ['qr_code_id', 'tag'])
    .execute()
  await db.schema
    .createIndex('qr_code_tags_account_tag_idx')
    .on('qr_code_tags')
    .columns(['account_id', 'tag', 'qr_code_id'])
    .execute()
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('qr_code_tags').execute()
  await db.schema.alterTable('qr_codes').dropColumn('tags').execute()
}
