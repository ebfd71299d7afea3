import { type Kysely, PostgresAdapter, sql } from 'kysely'

// Frozen: migrations never import application code.
// scan_visitors held each visitor of a code once, with the day of their latest scan. Every
// visitor's days are in scan_visitor_dates, whose index by visitor (code, visitor, day) answers
// the same in one seek (its largest day), so the scan writer reads it there and no longer
// writes a row per new visitor into a third tree keyed by the visitor's HMAC: a batch's new
// visitors dirtied nearly every page of it (docs/performance.md, #14.4).
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('scan_visitors').execute()
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  const isPostgres = db.getExecutor().adapter instanceof PostgresAdapter
  await db.schema
    .createTable('scan_visitors')
    .addColumn('qr_code_id', 'text', (c) => c.notNull().references('qr_codes.id').onDelete('cascade'))
    .addColumn('visitor_id', 'text', (c) => c.notNull())
    .addColumn('last_day', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_visitors_pk', ['qr_code_id', 'visitor_id'])
    .modifyEnd(isPostgres ? sql`` : sql`without rowid`)
    .execute()
  await sql`
    insert into scan_visitors (qr_code_id, visitor_id, last_day)
    select qr_code_id, visitor_id, max(day) from scan_visitor_dates group by qr_code_id, visitor_id
  `.execute(db)
}
