import type { Asset, AssetList, CreateAsset, ListAssetsQuery } from '@qrctl/contract'
import type { Ctx } from '../../context.js'
import { type BeforeCommit, noBeforeCommit } from '../../db/unit-of-work.js'
import { conflict, notFound } from '../../errors.js'
import { reencodeImage } from './assets.image.js'
import type { AssetRecord } from './assets.repository.js'
import * as repo from './assets.repository.js'

export function toAsset(ctx: Ctx, record: AssetRecord): Asset {
  return {
    id: record.id,
    name: record.name,
    contentType: 'image/png',
    width: record.width,
    height: record.height,
    bytes: record.bytes,
    createdAt: record.createdAt,
    url: `${ctx.config.publicBaseUrl}/api/v1/assets/${record.id}/content`,
  }
}

/** Decodes, checks and re-encodes the upload (outside the transaction: it is CPU work), then stores it. */
export async function createAsset(
  ctx: Ctx,
  accountId: string,
  input: CreateAsset,
  beforeCommit: BeforeCommit<Asset> = noBeforeCommit,
): Promise<Asset> {
  const image = await reencodeImage(input.contentType, Buffer.from(input.data, 'base64'))
  const record: AssetRecord = {
    id: ctx.ids.uuid(),
    accountId,
    name: input.name ?? null,
    width: image.width,
    height: image.height,
    bytes: image.png.length,
    createdAt: ctx.clock.now().toISOString(),
  }
  return ctx.db.transaction().execute(async (trx) => {
    await repo.insertAsset(trx, record, image.png)
    const asset = toAsset(ctx, record)
    await beforeCommit(trx, asset)
    return asset
  })
}

export async function getAssetOrThrow(ctx: Ctx, accountId: string, id: string): Promise<Asset> {
  const record = await repo.findAsset(ctx.db, accountId, id)
  if (!record) throw notFound('asset', id)
  return toAsset(ctx, record)
}

export async function getAssetPngOrThrow(ctx: Ctx, accountId: string, id: string): Promise<Buffer> {
  const png = await repo.findAssetPng(ctx.db, accountId, id)
  if (!png) throw notFound('asset', id)
  return png
}

export async function listAssets(ctx: Ctx, accountId: string, query: ListAssetsQuery): Promise<AssetList> {
  const { records, total } = await repo.listAssets(ctx.db, accountId, query)
  return { data: records.map((r) => toAsset(ctx, r)), total, limit: query.limit, offset: query.offset }
}

/** 409 while a code's style uses the asset, deleted codes included until they are purged. */
export async function deleteAsset(ctx: Ctx, accountId: string, id: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.findAsset(trx, accountId, id))) throw notFound('asset', id)
    const user = await repo.codeUsingAsset(trx, accountId, id)
    if (user)
      throw conflict(`The asset is used by the style of QR code ${user}; change that style first`, {
        existingId: user,
      })
    await repo.deleteAsset(trx, accountId, id)
  })
}
