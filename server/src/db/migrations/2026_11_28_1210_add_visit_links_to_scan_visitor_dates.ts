import { type Kysely, PostgresAdapter, sql } from 'kysely'

// Frozen: migrations never import application code.
// DESIGN §16: a zone window's partial UTC days without reading their scans. Each visitor-day
// row of scan_visitor_dates gets the first and last quarter hour of that visitor's scans that
// day (`quarter` = floor(epoch seconds / 900), as in scan_quarters) and the visitor's previous
// and next visit day of that code ('' when none). The visitors of a window's partial first day
// [F, midnight) who have no visit in its whole days [a, b] are then the rows of that day with
// last_quarter >= quarter(F) and next_day '' or after b: one range read of the day's rows,
// no lookup per visitor; the partial last day the same with first_quarter and previous_day.
// Back-filled from the scans already stored (every row of scan_visitor_dates came from them).
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  const isPostgres = db.getExecutor().adapter instanceof PostgresAdapter
  for (const column of ['first_quarter', 'last_quarter'])
    await db.schema
      .alterTable('scan_visitor_dates')
      .addColumn(column, 'integer', (c) => c.notNull().defaultTo(0))
      .execute()
  for (const column of ['previous_day', 'next_day'])
    await db.schema
      .alterTable('scan_visitor_dates')
      .addColumn(column, 'text', (c) => c.notNull().defaultTo(''))
      .execute()
  const quarter = isPostgres
    ? sql`cast(floor(extract(epoch from cast(scanned_at as timestamptz)) / 900) as integer)`
    : sql`cast(strftime('%s', scanned_at) as integer) / 900`
  await sql`
    update scan_visitor_dates
    set first_quarter = v.first_quarter, last_quarter = v.last_quarter,
      previous_day = v.previous_day, next_day = v.next_day
    from (
      select qr_code_id, day, visitor_id, first_quarter, last_quarter,
        coalesce(lag(day) over (partition by qr_code_id, visitor_id order by day), '') as previous_day,
        coalesce(lead(day) over (partition by qr_code_id, visitor_id order by day), '') as next_day
      from (
        select qr_code_id, substr(scanned_at, 1, 10) as day, visitor_id,
          min(${quarter}) as first_quarter, max(${quarter}) as last_quarter
        from scans
        group by qr_code_id, substr(scanned_at, 1, 10), visitor_id
      ) days
    ) v
    where scan_visitor_dates.qr_code_id = v.qr_code_id
      and scan_visitor_dates.day = v.day
      and scan_visitor_dates.visitor_id = v.visitor_id
  `.execute(db)
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['next_day', 'previous_day', 'last_quarter', 'first_quarter'])
    await db.schema.alterTable('scan_visitor_dates').dropColumn(column).execute()
}
