import type { Kysely } from 'kysely'

// Frozen: migrations never import application code.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('showcases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // The hourly purge hard-deletes codes; their showcases go with them.
    .addColumn('qr_code_id', 'text', (c) => c.notNull().references('qr_codes.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('template', 'text', (c) => c.notNull())
    .addColumn('custom_colors', 'text')
    .addColumn('custom_background_url', 'text')
    .addColumn('logo_url', 'text')
    .addColumn('social_links', 'text')
    .addColumn('cta_buttons', 'text')
    .addColumn('show_branding', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('view_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('download_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  // Slugs are unique across the service: the public page is /s/{slug}.
  await db.schema.createIndex('showcases_slug_idx').on('showcases').column('slug').unique().execute()
  await db.schema
    .createIndex('showcases_account_list_idx')
    .on('showcases')
    .columns(['account_id', 'created_at', 'id'])
    .execute()
  await db.schema.createIndex('showcases_qr_code_idx').on('showcases').column('qr_code_id').execute()
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('showcases').execute()
}
