import { type Kysely, PostgresAdapter, sql } from 'kysely'

// Frozen: migrations never import application code.
// PostgreSQL only (issue #19): a search of 1 or 2 characters finds its codes through an index
// instead of reading every row of qr_code_texts (37 ms at 100,000 codes). pg_trgm has no trigram
// in such a term; this GIN index lists, for each 1- and 2-character gram of a code's search text,
// the codes holding it, so `grams @> array['zz']` is exactly "contains zz" (no recheck). It is an
// index on an expression, not a column: the grams of 100,000 codes take 13 MB here, where a
// stored array tripled the table (docs/performance.md). Grams across the U+001F that joins the
// fields are left out: no search can contain it (SearchTerm refuses control characters).
// The index follows qr_code_texts, which triggers keep in step with every write of qr_codes
// (1010), so every write path keeps it too. SQLite has its own gram index (1110).
// The function is PL/pgSQL, linear in the text (a substr() per position is quadratic on
// multibyte text: 14 s for 70,000 characters), 20–40 µs for a 100-character text; the index
// answers from its keys, so a query never calls it (see shortTermMatches).

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
  await sql`create function qr_code_search_grams(text_ text) returns text[]
    language plpgsql immutable strict parallel safe as $$
    declare
      field text;
      chars text[];
      grams text[] := '{}';
    begin
      foreach field in array string_to_array(text_, E'\\x1f') loop
        chars := string_to_array(field, null);
        grams := grams || chars;
        for i in 2 .. coalesce(array_length(chars, 1), 0) loop
          grams := grams || (chars[i - 1] || chars[i]);
        end loop;
      end loop;
      return grams;
    end $$`.execute(db)
  await sql`create index qr_code_texts_grams_idx on qr_code_texts
    using gin (qr_code_search_grams(search_text))`.execute(db)
  // The index's statistics (each common gram's frequency) choose between it and a scan.
  await sql`analyze qr_code_texts`.execute(db)
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against any schema version
export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
  await sql`drop index if exists qr_code_texts_grams_idx`.execute(db)
  await sql`drop function if exists qr_code_search_grams(text)`.execute(db)
}
