import type { Kysely } from 'kysely'

// Frozen: migrations never import application code.
// DESIGN §16: the CSV export walks an account's scans in time order, a page at a time from the
// last (scanned_at, id) sent; this index gives that order without a sort.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('scans_time_idx').on('scans').columns(['scanned_at', 'id']).execute()
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('scans_time_idx').execute()
}
