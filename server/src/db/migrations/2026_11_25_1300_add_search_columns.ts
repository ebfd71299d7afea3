import { type Kysely, PostgresAdapter, sql } from 'kysely'

// Frozen: migrations never import application code.
// Search and the name sort read two columns the application keeps (DESIGN §17, issue #19):
// `search_text`, the lower-cased name, content, target URL, short code and externalId joined by
// U+001F (final sigma folded to sigma), and `name_key`, the lower-cased name. Lower-casing happens
// in JavaScript (full Unicode on both databases; SQLite's lower() is ASCII only), so existing
// rows are filled in here.
// On PostgreSQL `name_key` collates "C": code-point order, as on SQLite.

const SEPARATOR = '\u001f'

interface Row {
  id: string
  name: string
  content: string
  target_url: string | null
  short_code: string | null
  external_id: string | null
}

function searchText(row: Row): string {
  return [row.name, row.content, row.target_url ?? '', row.short_code ?? '', row.external_id ?? '']
    .map((part) => part.replaceAll(SEPARATOR, ' '))
    .join(SEPARATOR)
    .toLowerCase()
    .replaceAll('ς', 'σ')
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  await db.schema
    .alterTable('qr_codes')
    .addColumn('search_text', 'text', (c) => c.notNull().defaultTo(''))
    .execute()
  await db.schema
    .alterTable('qr_codes')
    .addColumn('name_key', 'text', (c) => {
      const column = c.notNull().defaultTo('')
      return postgres ? column.modifyEnd(sql`collate "C"`) : column
    })
    .execute()
  for (let after = ''; ; ) {
    const rows: Row[] = await db
      .selectFrom('qr_codes')
      .select(['id', 'name', 'content', 'target_url', 'short_code', 'external_id'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(1000)
      .execute()
    if (rows.length === 0) break
    for (const row of rows) {
      await db
        .updateTable('qr_codes')
        .set({ search_text: searchText(row), name_key: row.name.toLowerCase() })
        .where('id', '=', row.id)
        .execute()
    }
    after = rows[rows.length - 1]?.id ?? after
  }
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('qr_codes').dropColumn('name_key').execute()
  await db.schema.alterTable('qr_codes').dropColumn('search_text').execute()
}
