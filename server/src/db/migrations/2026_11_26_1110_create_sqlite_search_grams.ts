import { type Kysely, PostgresAdapter, sql } from 'kysely'

// Frozen: migrations never import application code.
// SQLite only: searches of 1 or 2 characters (DESIGN §17, issue #19), which the trigram index
// (1330) cannot serve, as every code would be read to test it. `qr_codes_grams` indexes, per code
// (by qr_codes' rowid), every distinct substring of 1 and 2 characters of `search_text`, each
// written as the hex of its UTF-8 bytes (a token any tokenizer keeps whole, and never mistaken for
// another: UTF-8 decodes one way). Contentless and without positions, it holds rowids only;
// triggers keep it in step with every insert, update and delete, whoever writes.
// The positions 1…n of a text of n characters come from json_each over an array of n + 1 zeros
// (no recursive query is allowed in a trigger); the extra one yields '', which is dropped.

const positions = (text: string) =>
  `json_each('[' || replace(hex(zeroblob(length(${text}))), '00', '0,') || '0]')`
const substrings = (text: string, size: number) =>
  `select hex(substr(${text}, key + 1, ${size})) as gram from ${positions(text)}`
const grams = (text: string) =>
  sql.raw(
    `(select group_concat(gram, ' ') from (${substrings(text, 1)} union ${substrings(text, 2)}) where gram <> '')`,
  )

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return
  await sql`create virtual table qr_codes_grams using fts5(
    grams, content='', contentless_delete=1, detail='none', tokenize='ascii'
  )`.execute(db)
  await sql`insert into qr_codes_grams(rowid, grams) select rowid, ${grams('search_text')} from qr_codes`.execute(
    db,
  )
  await sql`create trigger qr_codes_grams_insert after insert on qr_codes begin
    insert into qr_codes_grams(rowid, grams) values (new.rowid, ${grams('new.search_text')});
  end`.execute(db)
  await sql`create trigger qr_codes_grams_delete after delete on qr_codes begin
    delete from qr_codes_grams where rowid = old.rowid;
  end`.execute(db)
  await sql`create trigger qr_codes_grams_update after update of search_text on qr_codes begin
    delete from qr_codes_grams where rowid = old.rowid;
    insert into qr_codes_grams(rowid, grams) values (new.rowid, ${grams('new.search_text')});
  end`.execute(db)
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return
  for (const trigger of ['qr_codes_grams_insert', 'qr_codes_grams_delete', 'qr_codes_grams_update'])
    await sql`drop trigger if exists ${sql.ref(trigger)}`.execute(db)
  await sql`drop table if exists qr_codes_grams`.execute(db)
}
