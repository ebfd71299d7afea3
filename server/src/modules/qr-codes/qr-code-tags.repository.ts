import type { TagCount } from '@qrctl/contract'
import type { ExpressionBuilder } from 'kysely'
import type { Db, Dialect } from '../../db/database.js'
import type { Database } from '../../db/schema.js'

/** Sets the tag rows of these codes to their `tags` (the filter's and GET /tags' copy). */
export async function replaceTagRows(
  db: Db,
  codes: readonly { id: string; accountId: string; tags: readonly string[]; deletedAt: string | null }[],
): Promise<void> {
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
 * How many of the account's codes carry every one of `tags` (at least one), live ones or those
 * deleted at or after `deletedSince`: read from the tag rows alone (their copy of `deleted_at`),
 * starting from the first tag and probing the others by key (PostgreSQL: a merge of the lists).
 */
export async function countTagged(
  db: Db,
  accountId: string,
  tags: readonly [string, ...string[]],
  deletedSince: string | undefined,
): Promise<number> {
  const [first, ...others] = tags
  let query = db
    .selectFrom('qr_code_tags as t')
    .select((eb) => eb.fn.countAll<number>().as('n'))
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
  const row = await query.executeTakeFirstOrThrow()
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
