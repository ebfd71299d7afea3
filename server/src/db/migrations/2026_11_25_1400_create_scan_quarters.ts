import { type Kysely, PostgresAdapter, sql } from 'kysely'

// Frozen: migrations never import application code.
// DESIGN §16: windows in any time zone. Every zone's day starts on a quarter hour (UTC+05:45,
// +09:30, -03:30 …), so rollups per 15-minute UTC bucket add up to any zone's local days.
// `quarter` = floor(epoch seconds / 900). The same dimensions as scan_daily; 'scans' (value '')
// counts every scan. Back-filled from the scans already stored.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  const isPostgres = db.getExecutor().adapter instanceof PostgresAdapter
  const clustered = isPostgres ? sql`` : sql`without rowid`
  await db.schema
    .createTable('scan_quarters')
    .addColumn('qr_code_id', 'text', (c) => c.notNull().references('qr_codes.id').onDelete('cascade'))
    .addColumn('dimension', 'text', (c) => c.notNull())
    .addColumn('quarter', 'integer', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_quarters_pk', ['qr_code_id', 'dimension', 'quarter', 'value'])
    .modifyEnd(clustered)
    .execute()

  const quarter = isPostgres
    ? sql`cast(floor(extract(epoch from cast(scanned_at as timestamptz)) / 900) as integer)`
    : sql`cast(strftime('%s', scanned_at) as integer) / 900`
  const columns: [string, ReturnType<typeof sql>][] = [
    ['scans', sql`''`],
    ['device', sql`device`],
    ['browser', sql`coalesce(browser, 'Unknown')`],
    ['os', sql`coalesce(os, 'Unknown')`],
    ['country', sql`coalesce(country, 'Unknown')`],
    ['city', sql`coalesce(city, 'Unknown')`],
    ['referrer', sql`coalesce(referrer, 'Unknown')`],
  ]
  for (const [dimension, value] of columns) {
    await sql`
      insert into scan_quarters (qr_code_id, dimension, quarter, value, count)
      select qr_code_id, ${sql.lit(dimension)}, ${quarter}, ${value}, count(*)
      from scans
      group by 1, 3, 4
    `.execute(db)
  }
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('scan_quarters').execute()
}
