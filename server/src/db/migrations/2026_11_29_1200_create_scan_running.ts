import { type Kysely, PostgresAdapter, sql } from 'kysely'

// Frozen: migrations never import application code.
// DESIGN §16, issue #23: running totals, so a window's counts read its edges, not its inside.
// One row per scan_quarters row (code, dimension, value, quarter with scans), keyed by value
// first, holding that quarter's count and `running`: the code's scans of that value up to and
// including that quarter. Scans of a value in [q1, q2) are then the running total of the last
// row before q2 less that of the last row before q1: two seeks, whatever the window's length
// or the number of scans in it. Back-filled from scan_quarters, which holds the same scans.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  const isPostgres = db.getExecutor().adapter instanceof PostgresAdapter
  const clustered = isPostgres ? sql`` : sql`without rowid`
  await db.schema
    .createTable('scan_running')
    .addColumn('qr_code_id', 'text', (c) => c.notNull().references('qr_codes.id').onDelete('cascade'))
    .addColumn('dimension', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('quarter', 'integer', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addColumn('running', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_running_pk', ['qr_code_id', 'dimension', 'value', 'quarter'])
    .modifyEnd(clustered)
    .execute()
  await sql`
    insert into scan_running (qr_code_id, dimension, value, quarter, count, running)
    select qr_code_id, dimension, value, quarter, count,
      sum(count) over (partition by qr_code_id, dimension, value order by quarter rows unbounded preceding)
    from scan_quarters
  `.execute(db)
  // PostgreSQL reads a value's last row before a quarter from the index alone once the
  // visibility map allows; a fresh table's is empty until vacuumed.
  if (isPostgres) await sql`analyze scan_running`.execute(db)
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('scan_running').execute()
}
