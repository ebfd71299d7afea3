import { type Kysely, PostgresAdapter, sql } from 'kysely'

// Frozen: migrations never import application code.
// DESIGN §16: unique visitors of any window without reading one row per visitor. A visitor
// counts in the whole UTC days [a, b] on their first visit day in it: a day d in [a, b] whose
// previous visit day p (of that code) is before a, or who had none. Per code and visit day:
// `previous_day` '' holds the visitors on `day` with no earlier visit; a date p holds those
// whose previous visit day is p or earlier (a prefix sum over p, so a window reads two rows a
// day, whatever the traffic). First visits are kept apart so that the commonest write (a new
// visitor) changes one row instead of every later prefix.
// scan_visitor_dates gets an index by visitor: writing a visit day between two stored ones
// (admin import-scans) needs the visitor's days, and so do a zone's partial days when read.
// Back-filled from scan_visitor_dates.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  const isPostgres = db.getExecutor().adapter instanceof PostgresAdapter
  await db.schema
    .createTable('scan_visitor_gaps')
    .addColumn('qr_code_id', 'text', (c) => c.notNull().references('qr_codes.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('previous_day', 'text', (c) => c.notNull())
    .addColumn('visitors', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_visitor_gaps_pk', ['qr_code_id', 'day', 'previous_day'])
    .modifyEnd(isPostgres ? sql`` : sql`without rowid`)
    .execute()
  await db.schema
    .createIndex('scan_visitor_dates_visitor_idx')
    .on('scan_visitor_dates')
    .columns(['qr_code_id', 'visitor_id', 'day'])
    .execute()
  await sql`
    insert into scan_visitor_gaps (qr_code_id, day, previous_day, visitors)
    select qr_code_id, day, previous_day,
      case when previous_day = '' then n
        else sum(case when previous_day = '' then 0 else n end)
          over (partition by qr_code_id, day order by previous_day rows unbounded preceding)
      end
    from (
      select qr_code_id, day, previous_day, count(*) as n
      from (
        select qr_code_id, day,
          coalesce(lag(day) over (partition by qr_code_id, visitor_id order by day), '') as previous_day
        from scan_visitor_dates
      ) visits
      group by qr_code_id, day, previous_day
    ) gaps
  `.execute(db)
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('scan_visitor_dates_visitor_idx').execute()
  await db.schema.dropTable('scan_visitor_gaps').execute()
}
