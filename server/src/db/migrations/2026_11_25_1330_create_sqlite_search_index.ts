import { type Kysely, PostgresAdapter, sql } from 'kysely'

// Frozen: migrations never import application code.
// SQLite only (PostgreSQL has its trigram index, 1320): an FTS5 trigram index over
// qr_codes.search_text, so a search of 3 or more characters reads the few candidate rows instead
// of every row of the account (docs/performance.md). External content: the index stores no copy
// of the text, and triggers keep it in step with every insert, update and delete, whoever writes.
// It is keyed by qr_codes' rowid, which only a manual VACUUM could renumber (the server never runs
// one); after one, `insert into qr_codes_fts(qr_codes_fts) values('rebuild')` rebuilds it.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return
  await sql`create virtual table qr_codes_fts using fts5(
    search_text, content='qr_codes', content_rowid='rowid', tokenize='trigram'
  )`.execute(db)
  await sql`create trigger qr_codes_fts_insert after insert on qr_codes begin
    insert into qr_codes_fts(rowid, search_text) values (new.rowid, new.search_text);
  end`.execute(db)
  await sql`create trigger qr_codes_fts_delete after delete on qr_codes begin
    insert into qr_codes_fts(qr_codes_fts, rowid, search_text) values ('delete', old.rowid, old.search_text);
  end`.execute(db)
  await sql`create trigger qr_codes_fts_update after update of search_text on qr_codes begin
    insert into qr_codes_fts(qr_codes_fts, rowid, search_text) values ('delete', old.rowid, old.search_text);
    insert into qr_codes_fts(rowid, search_text) values (new.rowid, new.search_text);
  end`.execute(db)
  await sql`insert into qr_codes_fts(qr_codes_fts) values ('rebuild')`.execute(db)
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return
  for (const trigger of ['qr_codes_fts_insert', 'qr_codes_fts_delete', 'qr_codes_fts_update'])
    await sql`drop trigger if exists ${sql.ref(trigger)}`.execute(db)
  await sql`drop table if exists qr_codes_fts`.execute(db)
}
