import type { TagCount } from '@qrctl/contract'
import type { Db } from '../../db/database.js'

/** Sets the tag rows of these codes to their `tags` (the filter's and GET /tags' copy). */
export async function replaceTagRows(
  db: Db,
  codes: readonly { id: string; accountId: string; tags: readonly string[] }[],
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
    code.tags.map((tag) => ({ qr_code_id: code.id, account_id: code.accountId, tag })),
  )
  // 100 codes × 20 tags stays under both databases' limits on bound parameters.
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('qr_code_tags')
      .values(rows.slice(i, i + 500))
      .execute()
  }
}

/** The account's tags on codes not deleted, by name (code-point order), with their counts. */
export async function countTags(db: Db, accountId: string): Promise<TagCount[]> {
  const rows = await db
    .selectFrom('qr_code_tags as t')
    .innerJoin('qr_codes as c', 'c.id', 't.qr_code_id')
    .select(['t.tag', (eb) => eb.fn.countAll<number>().as('n')])
    .where('t.account_id', '=', accountId)
    .where('c.deleted_at', 'is', null)
    .groupBy('t.tag')
    .execute()
  // Sorted here: tags are ASCII, and JavaScript's order is the same on both databases.
  return rows
    .map((row) => ({ name: row.tag, count: Number(row.n) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}
