import { contract, type ImageQuery, type PreviewQrCode } from '@qrctl/contract'
import type { RenderFormat } from '@qrctl/render'
import { initServer } from '@ts-rest/express'
import type { Request, Response } from 'express'
import type { Ctx } from '../../context.js'
import { getAnalytics } from '../analytics/analytics.service.js'
import { answerOnCommit } from '../idempotency/idempotency.middleware.js'
import { type ImageAnswer, renderPreview, renderQrCodeImage } from '../images/images.service.js'
import * as bulk from './qr-codes.bulk.js'
import * as qrCodes from './qr-codes.service.js'

const s = initServer()

/** What the router needs from the transport layer (injected: modules never import http/). */
export interface QrCodesRouterDeps {
  imageAnswer: ImageAnswer
}

export function createQrCodesRouter(ctx: Ctx, deps: QrCodesRouterDeps) {
  const image =
    (format: RenderFormat) =>
    async (input: {
      params: { id: string }
      query: ImageQuery
      req: Pick<Request, 'auth' | 'get'>
      res: Response
    }) => {
      const { params, query, req, res } = input
      const result = await renderQrCodeImage(
        ctx,
        req.auth.accountId,
        params.id,
        format,
        query,
        req.get('if-none-match'),
      )
      // DESIGN §10: every /api/v1 answer is no-store (the request's begin set it); the ETag
      // still saves the bytes (304).
      const answer = deps.imageAnswer(res, result)
      return answer.status === 304
        ? { status: 304 as const, body: undefined }
        : { status: 200 as const, body: answer.body as unknown as Blob }
    }

  const preview =
    (format: 'png' | 'svg') =>
    async (input: { body: PreviewQrCode; req: Pick<Request, 'auth'>; res: Response }) => {
      const result = await renderPreview(ctx, input.req.auth.accountId, format, input.body)
      const answer = deps.imageAnswer(input.res, result)
      return { status: 200 as const, body: answer.body as unknown as Blob }
    }

  return s.router(contract.qrCodes, {
    list: async ({ query, req }) => ({
      status: 200,
      body: await qrCodes.listQrCodes(ctx, req.auth.accountId, query),
    }),
    create: async ({ body, req }) => ({
      status: 201,
      body: { data: await qrCodes.createQrCode(ctx, req.auth.accountId, body, answerOnCommit(req, 201)) },
    }),
    get: async ({ params, req }) => ({
      status: 200,
      body: { data: await qrCodes.getQrCodeOrThrow(ctx, req.auth.accountId, params.id) },
    }),
    update: async ({ params, body, req }) => ({
      status: 200,
      body: { data: await qrCodes.updateQrCode(ctx, req.auth.accountId, params.id, body) },
    }),
    delete: async ({ params, req }) => {
      await qrCodes.deleteQrCode(ctx, req.auth.accountId, params.id)
      return { status: 200, body: { success: true } }
    },
    restore: async ({ params, req }) => ({
      status: 200,
      body: {
        data: await qrCodes.restoreQrCode(ctx, req.auth.accountId, params.id, answerOnCommit(req, 200)),
      },
    }),
    batch: async ({ body, query, req }) => ({
      status: 201,
      body: {
        data: await qrCodes.batchCreate(
          ctx,
          req.auth.accountId,
          body.codes,
          query.dryRun ?? false,
          answerOnCommit(req, 201),
        ),
      },
    }),
    bulkUpdate: async ({ body, req }) => ({
      status: 200,
      body: { data: await bulk.bulkUpdate(ctx, req.auth.accountId, body, answerOnCommit(req, 200)) },
    }),
    bulkDelete: async ({ body, req }) => ({
      status: 200,
      body: { data: await bulk.bulkDelete(ctx, req.auth.accountId, body.ids, answerOnCommit(req, 200)) },
    }),
    bulkRestore: async ({ body, req }) => ({
      status: 200,
      body: { data: await bulk.bulkRestore(ctx, req.auth.accountId, body.ids, answerOnCommit(req, 200)) },
    }),
    analytics: async ({ params, query, req }) => ({
      status: 200,
      body: { data: await getAnalytics(ctx, req.auth.accountId, params.id, query) },
    }),
    imagePng: image('png'),
    imageSvg: image('svg'),
    imagePdf: image('pdf'),
    previewPng: preview('png'),
    previewSvg: preview('svg'),
  })
}
