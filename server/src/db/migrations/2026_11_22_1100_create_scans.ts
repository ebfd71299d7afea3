import { type Kysely, PostgresAdapter, sql } from 'kysely'

// Frozen: migrations never import application code.
// Every table references qr_codes with ON DELETE CASCADE: the hourly purge hard-deletes
// codes, and their scans and rollups go with them.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  const isPostgres = db.getExecutor().adapter instanceof PostgresAdapter
  // On SQLite the rollups are stored in primary-key order (no rowid), so a code's days and
  // values are read as one contiguous range, without a lookup per row.
  const clustered = isPostgres ? sql`` : sql`without rowid`
  // One row per counted scan, as recorded. No raw IP: visitor_id is an HMAC. The id is a
  // growing integer (SQLite's rowid, a PostgreSQL bigserial): appends stay cheap at scan rates.
  await db.schema
    .createTable('scans')
    .addColumn('id', isPostgres ? 'bigserial' : 'integer', (c) => c.primaryKey())
    .addColumn('qr_code_id', 'text', (c) => c.notNull().references('qr_codes.id').onDelete('cascade'))
    .addColumn('scanned_at', 'text', (c) => c.notNull())
    .addColumn('visitor_id', 'text', (c) => c.notNull())
    .addColumn('device', 'text', (c) => c.notNull())
    .addColumn('browser', 'text')
    .addColumn('os', 'text')
    .addColumn('country', 'text')
    .addColumn('city', 'text')
    .addColumn('referrer', 'text')
    .execute()
  await db.schema
    .createIndex('scans_code_time_idx')
    .on('scans')
    .columns(['qr_code_id', 'scanned_at'])
    .execute()

  // Scans per UTC day and dimension value; dimension 'scans' (value '') counts every scan.
  await db.schema
    .createTable('scan_daily')
    .addColumn('qr_code_id', 'text', (c) => c.notNull().references('qr_codes.id').onDelete('cascade'))
    .addColumn('dimension', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_daily_pk', ['qr_code_id', 'dimension', 'day', 'value'])
    .modifyEnd(clustered)
    .execute()

  // The same counts over the code's whole life, so period=all reads one row per value.
  await db.schema
    .createTable('scan_totals')
    .addColumn('qr_code_id', 'text', (c) => c.notNull().references('qr_codes.id').onDelete('cascade'))
    .addColumn('dimension', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_totals_pk', ['qr_code_id', 'dimension', 'value'])
    .modifyEnd(clustered)
    .execute()

  // Each visitor of a code once, with the UTC day of their latest scan.
  await db.schema
    .createTable('scan_visitors')
    .addColumn('qr_code_id', 'text', (c) => c.notNull().references('qr_codes.id').onDelete('cascade'))
    .addColumn('visitor_id', 'text', (c) => c.notNull())
    .addColumn('last_day', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_visitors_pk', ['qr_code_id', 'visitor_id'])
    .modifyEnd(clustered)
    .execute()

  // How many of a code's visitors were last seen on each day: the distinct visitors of a
  // window ending today are the sum over its days.
  await db.schema
    .createTable('scan_visitor_days')
    .addColumn('qr_code_id', 'text', (c) => c.notNull().references('qr_codes.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_visitor_days_pk', ['qr_code_id', 'day'])
    .modifyEnd(clustered)
    .execute()
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['scan_visitor_days', 'scan_visitors', 'scan_totals', 'scan_daily', 'scans']) {
    await db.schema.dropTable(table).execute()
  }
}
