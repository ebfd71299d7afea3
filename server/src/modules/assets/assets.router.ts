import { createHash } from 'node:crypto'
import { contract } from '@qrctl/contract'
import { initServer } from '@ts-rest/express'
import type { Ctx } from '../../context.js'
import { answerOnCommit } from '../idempotency/idempotency.middleware.js'
import type { ImageAnswer } from '../images/images.service.js'
import * as assets from './assets.service.js'

const s = initServer()

export interface AssetsRouterDeps {
  imageAnswer: ImageAnswer
}

export function createAssetsRouter(ctx: Ctx, deps: AssetsRouterDeps) {
  return s.router(contract.assets, {
    list: async ({ query, req }) => ({
      status: 200,
      body: await assets.listAssets(ctx, req.auth.accountId, query),
    }),
    create: async ({ body, req }) => ({
      status: 201,
      body: { data: await assets.createAsset(ctx, req.auth.accountId, body, answerOnCommit(req, 201)) },
    }),
    get: async ({ params, req }) => ({
      status: 200,
      body: { data: await assets.getAssetOrThrow(ctx, req.auth.accountId, params.id) },
    }),
    content: async ({ params, req, res }) => {
      const png = await assets.getAssetPngOrThrow(ctx, req.auth.accountId, params.id)
      const etag = `"${createHash('sha1').update(png).digest('base64url')}"`
      const image = { format: 'png' as const, body: png, contentType: 'image/png', etag }
      const answer = deps.imageAnswer(res, { notModified: false, image, attachment: undefined })
      return { status: 200, body: answer.body as unknown as Blob }
    },
    delete: async ({ params, req }) => {
      await assets.deleteAsset(ctx, req.auth.accountId, params.id)
      return { status: 200, body: { success: true } }
    },
  })
}
