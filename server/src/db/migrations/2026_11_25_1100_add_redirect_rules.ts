import type { Kysely } from 'kysely'

// Frozen: migrations never import application code.
// DESIGN §14: redirect rules, expiry, scan limit, password, UTM and query pass-through of a
// dynamic code, on the code's own row so the short link's one lookup reads them all.
// `scans_reserved` counts redirects to the code's own destinations while it has a limit (the
// atomic reservation). SQLite adds one column per ALTER TABLE.
const COLUMNS: [name: string, type: 'text' | 'bigint' | 'integer', notNullDefault?: number][] = [
  ['rules', 'text'],
  ['expires_at', 'text'],
  ['expired_url', 'text'],
  ['max_scans', 'bigint'],
  ['after_limit_url', 'text'],
  ['scans_reserved', 'bigint', 0],
  ['password_hash', 'text'],
  ['utm', 'text'],
  ['forward_query', 'integer', 0],
]

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, type, fallback] of COLUMNS) {
    await db.schema
      .alterTable('qr_codes')
      .addColumn(name, type, (c) => (fallback === undefined ? c : c.notNull().defaultTo(fallback)))
      .execute()
  }
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of [...COLUMNS].reverse()) {
    await db.schema.alterTable('qr_codes').dropColumn(name).execute()
  }
}
