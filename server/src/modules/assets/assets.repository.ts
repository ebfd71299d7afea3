import type { Selectable } from 'kysely'
import type { Db } from '../../db/database.js'
import type { AssetsTable } from '../../db/schema.js'

export interface AssetRecord {
  id: string
  accountId: string
  name: string | null
  width: number
  height: number
  bytes: number
  createdAt: string
}

const META = ['id', 'account_id', 'name', 'width', 'height', 'bytes', 'created_at'] as const

function toAssetRecord(row: Pick<Selectable<AssetsTable>, (typeof META)[number]>): AssetRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    width: Number(row.width),
    height: Number(row.height),
    bytes: Number(row.bytes),
    createdAt: row.created_at,
  }
}

export async function insertAsset(db: Db, record: AssetRecord, png: Uint8Array): Promise<void> {
  await db
    .insertInto('assets')
    .values({
      id: record.id,
      account_id: record.accountId,
      name: record.name,
      content_type: 'image/png',
      width: record.width,
      height: record.height,
      bytes: record.bytes,
      data: Buffer.from(png).toString('base64'),
      created_at: record.createdAt,
    })
    .execute()
}

export async function findAsset(db: Db, accountId: string, id: string): Promise<AssetRecord | undefined> {
  const row = await db
    .selectFrom('assets')
    .select(META)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
  return row && toAssetRecord(row)
}

/** The stored PNG of an asset of the account. */
export async function findAssetPng(db: Db, accountId: string, id: string): Promise<Buffer | undefined> {
  const row = await db
    .selectFrom('assets')
    .select('data')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
  return row && Buffer.from(row.data, 'base64')
}

export async function listAssets(
  db: Db,
  accountId: string,
  page: { limit: number; offset: number },
): Promise<{ records: AssetRecord[]; total: number }> {
  const query = db.selectFrom('assets').where('account_id', '=', accountId)
  const [rows, count] = await Promise.all([
    query
      .select(META)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { records: rows.map(toAssetRecord), total: Number(count.n) }
}

/**
 * The id of a code of the account (deleted ones too, until purged) whose style uses the asset.
 * Styles are stored as compact JSON text, so `"assetId":"<id>"` appears verbatim in it.
 */
export async function codeUsingAsset(
  db: Db,
  accountId: string,
  assetId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('qr_codes')
    .select('id')
    .where('account_id', '=', accountId)
    .where('style', 'like', `%"assetId":"${assetId}"%`)
    .limit(1)
    .executeTakeFirst()
  return row?.id
}

export async function deleteAsset(db: Db, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('assets').where('account_id', '=', accountId).where('id', '=', id).execute()
}

/**
 * The stored PNG by id alone, for drawing a saved style: the style's asset was checked to be
 * the code's account's when the style was saved, and an asset in use cannot be deleted.
 */
export async function findAssetPngById(db: Db, id: string): Promise<Buffer | undefined> {
  const row = await db.selectFrom('assets').select('data').where('id', '=', id).executeTakeFirst()
  return row && Buffer.from(row.data, 'base64')
}
