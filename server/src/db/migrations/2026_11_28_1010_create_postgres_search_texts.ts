import { type Kysely, PostgresAdapter, sql } from 'kysely'

// Frozen: migrations never import application code.
// PostgreSQL only: searches of 1 or 2 characters (DESIGN §17, issue #19), which pg_trgm cannot
// serve (no trigram in `%zz%`), so each one reads every code's text. `qr_code_texts` holds only
// what such a search reads, one row per code: its account, `deleted_at` and `search_text`, about
// a third of qr_codes' pages (docs/performance.md). SQLite has its gram index (1110) instead.
// Triggers keep it in step with every insert, and every update that sets one of those columns,
// whoever writes; a code's deletion takes its row along (ON DELETE CASCADE). The redirect path
// sets none of them, so its updates fire nothing.

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
  await sql`create table qr_code_texts (
    qr_code_id text primary key references qr_codes (id) on delete cascade,
    account_id text not null,
    deleted_at text,
    search_text text not null
  )`.execute(db)
  await sql`insert into qr_code_texts (qr_code_id, account_id, deleted_at, search_text)
    select id, account_id, deleted_at, search_text from qr_codes`.execute(db)
  await sql`create index qr_code_texts_account_idx on qr_code_texts (account_id)`.execute(db)
  // Inserts: once per statement (a batch writes up to 500 codes in one). Updates: per row, as
  // PostgreSQL allows transition tables only on triggers without a column list.
  await sql`create function qr_code_texts_insert() returns trigger language plpgsql as $$
    begin
      insert into qr_code_texts (qr_code_id, account_id, deleted_at, search_text)
        select id, account_id, deleted_at, search_text from inserted;
      return null;
    end $$`.execute(db)
  await sql`create trigger qr_code_texts_insert after insert on qr_codes
    referencing new table as inserted for each statement execute function qr_code_texts_insert()`.execute(db)
  await sql`create function qr_code_texts_update() returns trigger language plpgsql as $$
    begin
      update qr_code_texts
        set account_id = new.account_id, deleted_at = new.deleted_at, search_text = new.search_text
        where qr_code_id = new.id;
      return null;
    end $$`.execute(db)
  await sql`create trigger qr_code_texts_update after update of account_id, deleted_at, search_text on qr_codes
    for each row execute function qr_code_texts_update()`.execute(db)
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
  await sql`drop trigger if exists qr_code_texts_update on qr_codes`.execute(db)
  await sql`drop trigger if exists qr_code_texts_insert on qr_codes`.execute(db)
  await sql`drop function if exists qr_code_texts_update()`.execute(db)
  await sql`drop function if exists qr_code_texts_insert()`.execute(db)
  await sql`drop table if exists qr_code_texts`.execute(db)
}
