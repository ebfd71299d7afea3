import { type Kysely, PostgresAdapter, sql } from 'kysely'

// Frozen: migrations never import application code.
// DESIGN §16: unique visitors exact in every window. Each visitor of a code once per UTC day
// they scanned it: the distinct visitors of a window are the union over its whole UTC days
// (plus, at a zone's partial days, the scans themselves), so the cost grows with visitors ×
// days, not with scans. Back-filled from the scans already stored.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  const isPostgres = db.getExecutor().adapter instanceof PostgresAdapter
  await db.schema
    .createTable('scan_visitor_dates')
    .addColumn('qr_code_id', 'text', (c) => c.notNull().references('qr_codes.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('visitor_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_visitor_dates_pk', ['qr_code_id', 'day', 'visitor_id'])
    .modifyEnd(isPostgres ? sql`` : sql`without rowid`)
    .execute()
  await sql`
    insert into scan_visitor_dates (qr_code_id, day, visitor_id)
    select distinct qr_code_id, substr(scanned_at, 1, 10), visitor_id from scans
  `.execute(db)
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('scan_visitor_dates').execute()
}
