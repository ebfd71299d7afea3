import { type Kysely, PostgresAdapter, sql } from 'kysely'

// Frozen: migrations never import application code.
// The list's sorts (DESIGN §17): ties go by id ascending, so each key needs an index per
// direction to be read in order without sorting. Partial (live codes only), as lists are.
// `createdAt` is served by qr_codes_account_list_idx. On PostgreSQL a trigram index serves the
// substring search (LIKE '%…%'); SQLite scans the account's rows (see docs/performance.md).
const SORT_KEYS = ['updated_at', 'name_key', 'total_scans'] as const

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  for (const key of SORT_KEYS) {
    for (const direction of ['asc', 'desc'] as const) {
      await db.schema
        .createIndex(`qr_codes_account_${key}_${direction}_idx`)
        .on('qr_codes')
        .columns(['account_id', `${key} ${direction}`, 'id'])
        .where(sql.ref('deleted_at'), 'is', null)
        .execute()
    }
  }
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // pg_trgm is a trusted extension (PostgreSQL 13+): a database owner may create it.
    await sql`create extension if not exists pg_trgm`.execute(db)
    await sql`create index qr_codes_search_trgm_idx on qr_codes using gin (search_text gin_trgm_ops)`.execute(
      db,
    )
  }
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('qr_codes_search_trgm_idx').ifExists().execute()
  for (const key of SORT_KEYS) {
    for (const direction of ['asc', 'desc'] as const) {
      await db.schema.dropIndex(`qr_codes_account_${key}_${direction}_idx`).execute()
    }
  }
}
