import type { TagCount } from '@qrctl/contract'
import { type ExpressionBuilder, sql } from 'kysely'
import type { Db, Dialect } from '../../db/database.js'
import type { Database } from '../../db/schema.js'
import { containsCondition } from './qr-codes.search.js'

/**
 * A tag row's copy of its code's search text is NULL above this many UTF-8 bytes (up to ~6.6 KB:
 * content 4,096 bytes, target URL 2,048), as a PostgreSQL B-tree entry holds at most 2,704
 * bytes; a count then tests that code's own text (countTagged).
 */
export const TAG_ROW_TEXT_MAX_BYTES = 2000

function tagRowText(text: string): string | null {
  return Buffer.byteLength(text, 'utf8') <= TAG_ROW_TEXT_MAX_BYTES ? text : null
}

/** A code as its tag rows copy it: its tags, `deleted_at` and search text. */
export interface TaggedCode {
  id: string
  accountId: string
  tags: readonly string[]
  deletedAt: string | null
  /** The code's `search_text` (qr-codes.search.ts). */
  searchText: string
}

/**
 * Sets the tag rows of these codes to their `tags` (the filter's and GET /tags' copy), each
 * carrying the code's `deleted_at` and search text, so that a tag's total, alone or with a search,
 * is counted from its index (countTagged).
 */
export async function replaceTagRows(db: Db, codes: readonly TaggedCode[]): Promise<void> {
  if (codes.length === 0) return
  await db
    .deleteFrom('qr_code_tags')
    .where(
      'qr_code_id',
      'in',
      codes.map((code) => code.id),
    )
    .execute()
  const rows = codes.flatMap((code) =>
    code.tags.map((tag) => ({
      qr_code_id: code.id,
      account_id: code.accountId,
      tag,
      deleted_at: code.deletedAt,
      search_text: tagRowText(code.searchText),
    })),
  )
  // 100 codes × 20 tags stays under both databases' limits on bound parameters.
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('qr_code_tags')
      .values(rows.slice(i, i + 500))
      .execute()
  }
}

/** Copies a code's new `deleted_at` to its tag rows (see setDeletedAt). */
export async function setTagRowsDeletedAt(db: Db, id: string, deletedAt: string | null): Promise<void> {
  await db.updateTable('qr_code_tags').set({ deleted_at: deletedAt }).where('qr_code_id', '=', id).execute()
}

/** Copies a code's new search text to its tag rows (see updateQrCode). */
export async function setTagRowsSearchText(db: Db, id: string, searchText: string): Promise<void> {
  await db
    .updateTable('qr_code_tags')
    .set({ search_text: tagRowText(searchText) })
    .where('qr_code_id', '=', id)
    .execute()
}

/**
 * A condition on `qr_codes`: the code carries every one of `tags`. `driven` (SQLite, few matches,
 * see listQrCodes): one list of ids the query starts from, the tags' rows intersected. Otherwise
 * SQLite, walking a sort index, probes the tag rows' key (qr_code_id, tag) once per code and tag;
 * PostgreSQL gets a semi-join per tag and picks probing or hashing by its statistics.
 */
export function tagCondition(
  db: Db,
  dialect: Dialect,
  accountId: string,
  tags: readonly string[],
  driven: boolean,
) {
  const tagged = (tag: string) =>
    db
      .selectFrom('qr_code_tags')
      .select('qr_code_id')
      .where('account_id', '=', accountId)
      .where('tag', '=', tag)
  return (eb: ExpressionBuilder<Database, 'qr_codes'>) => {
    if (driven) {
      const [first, ...others] = tags.map(tagged)
      return eb(
        'qr_codes.id',
        'in',
        others.reduce((all, next) => all.intersect(next), first!),
      )
    }
    return eb.and(
      tags.map((tag) =>
        dialect === 'postgres'
          ? eb('qr_codes.id', 'in', tagged(tag))
          : eb.exists(
              eb
                .selectFrom('qr_code_tags')
                .select('qr_code_tags.qr_code_id')
                .whereRef('qr_code_tags.qr_code_id', '=', 'qr_codes.id')
                .where('qr_code_tags.tag', '=', tag),
            ),
      ),
    )
  }
}

/**
 * The ids of the account's codes carrying every one of `tags` (at least one), live ones or those
 * deleted at or after `deletedSince`, and containing `search` if given: read from the tag rows
 * alone (their copies of `deleted_at` and the search text), starting from the first tag and
 * probing the others by key (PostgreSQL: a merge of the lists). The rows without a copy (a text
 * over TAG_ROW_TEXT_MAX_BYTES), found by their own partial index, have their code's text tested.
 * Two branches rather than one `coalesce(copy, code's text)`: PostgreSQL costs that subquery on
 * every row, and the estimate (10^5 for 12,389 rows) started JIT compilation, 11 ms a query.
 */
export function taggedCodes(
  db: Db,
  dialect: Dialect,
  accountId: string,
  tags: readonly [string, ...string[]],
  deletedSince: string | undefined,
  search: string | undefined,
) {
  const [first, ...others] = tags
  const tagged = () => {
    let query = db
      .selectFrom('qr_code_tags as t')
      .select('t.qr_code_id')
      .where('t.account_id', '=', accountId)
      .where('t.tag', '=', first)
    query =
      deletedSince === undefined
        ? query.where('t.deleted_at', 'is', null)
        : query.where('t.deleted_at', '>=', deletedSince)
    for (const tag of others)
      query = query.where((eb) =>
        eb.exists(
          eb
            .selectFrom('qr_code_tags as o')
            .select('o.qr_code_id')
            .where('o.account_id', '=', accountId)
            .where('o.tag', '=', tag)
            .whereRef('o.qr_code_id', '=', 't.qr_code_id'),
        ),
      )
    return query
  }
  if (search === undefined) return tagged()
  const own = containsCondition(dialect, 'c.search_text', search)
  // `is not null` names the copies' partial index (see migration 2026_11_28_1000).
  return tagged()
    .where('t.search_text', 'is not', null)
    .where(containsCondition(dialect, 't.search_text', search))
    .unionAll(
      tagged()
        .where('t.search_text', 'is', null)
        .where(sql<boolean>`exists (select 1 from qr_codes c where c.id = t.qr_code_id and ${own})`),
    )
}

/** How many codes taggedCodes lists: its rows counted, no code visited. */
export async function countTagged(...args: Parameters<typeof taggedCodes>): Promise<number> {
  const [db] = args
  const row = await db
    .selectFrom(taggedCodes(...args).as('m'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** The account's tags on codes not deleted, by name (code-point order), with their counts. */
export async function countTags(db: Db, accountId: string): Promise<TagCount[]> {
  const rows = await db
    .selectFrom('qr_code_tags')
    .select(['tag', (eb) => eb.fn.countAll<number>().as('n')])
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .groupBy('tag')
    .execute()
  // Sorted here: tags are ASCII, and JavaScript's order is the same on both databases.
  return rows
    .map((row) => ({ name: row.tag, count: Number(row.n) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}
