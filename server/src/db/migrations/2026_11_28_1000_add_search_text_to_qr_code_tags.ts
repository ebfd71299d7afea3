import { type Kysely, PostgresAdapter, sql } from 'kysely'

// Frozen: migrations never import application code.
// A tag combined with a search, at scale (DESIGN §17, issue #19): each tag row carries its code's
// `search_text` (as it carries `deleted_at`, 1100), so the total of `tag=vip&search=table 1` is
// read from one index, the tag's rows in order with the text of each, instead of testing the text
// on ~20,000 codes spread over the whole qr_codes table (docs/performance.md: 39 ms on SQLite and
// 55 ms on PostgreSQL before). The copy is NULL when the text is over 2,000 UTF-8 bytes: a
// PostgreSQL B-tree entry holds at most 2,704 bytes, and the count then tests the code's own text,
// finding those rows by a partial index of their own (few or none).
// The repository writes the copy wherever it writes the code's `search_text` or its tag rows.
const COPY_MAX_BYTES = 2000

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  await db.schema.alterTable('qr_code_tags').addColumn('search_text', 'text').execute()
  const bytes = postgres ? sql`octet_length(c.search_text)` : sql`length(cast(c.search_text as blob))`
  await sql`update qr_code_tags
    set search_text = (
      select c.search_text from qr_codes c where c.id = qr_code_tags.qr_code_id and ${bytes} <= ${sql.lit(COPY_MAX_BYTES)}
    )`.execute(db)
  // PostgreSQL: the text rides along (INCLUDE) for index-only scans; SQLite has no INCLUDE, and a
  // trailing key column serves the same. Partial (rows with a copy), so that only a query saying
  // `search_text is not null` can use it: SQLite, without statistics, otherwise read a tag alone
  // from it rather than from the narrower 1100 index (tag + tag: 13.3 → 14.8 ms).
  if (postgres)
    await sql`create index qr_code_tags_account_tag_search_idx
      on qr_code_tags (account_id, tag, deleted_at, qr_code_id) include (search_text)
      where search_text is not null`.execute(db)
  else
    await db.schema
      .createIndex('qr_code_tags_account_tag_search_idx')
      .on('qr_code_tags')
      .columns(['account_id', 'tag', 'deleted_at', 'qr_code_id', 'search_text'])
      .where(sql.ref('search_text'), 'is not', null)
      .execute()
  await db.schema
    .createIndex('qr_code_tags_account_tag_textless_idx')
    .on('qr_code_tags')
    .columns(['account_id', 'tag', 'deleted_at', 'qr_code_id'])
    .where(sql.ref('search_text'), 'is', null)
    .execute()
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('qr_code_tags_account_tag_textless_idx').execute()
  await db.schema.dropIndex('qr_code_tags_account_tag_search_idx').execute()
  await db.schema.alterTable('qr_code_tags').dropColumn('search_text').execute()
}
