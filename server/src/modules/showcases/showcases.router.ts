import { contract } from '@qrctl/contract'
import { initServer } from '@ts-rest/express'
import type { Ctx } from '../../context.js'
import { answerOnCommit } from '../idempotency/idempotency.middleware.js'
import * as showcases from './showcases.service.js'

const s = initServer()

export function createShowcasesRouter(ctx: Ctx) {
  return s.router(contract.showcases, {
    list: async ({ query, req }) => ({
      status: 200,
      body: await showcases.listShowcases(ctx, req.auth.accountId, query),
    }),
    create: async ({ body, req }) => ({
      status: 201,
      body: { data: await showcases.createShowcase(ctx, req.auth.accountId, body, answerOnCommit(req, 201)) },
    }),
    get: async ({ params, req }) => ({
      status: 200,
      body: { data: await showcases.getShowcaseOrThrow(ctx, req.auth.accountId, params.id) },
    }),
    update: async ({ params, body, req }) => ({
      status: 200,
      body: { data: await showcases.updateShowcase(ctx, req.auth.accountId, params.id, body) },
    }),
    delete: async ({ params, req }) => {
      await showcases.deleteShowcase(ctx, req.auth.accountId, params.id)
      return { status: 200, body: { success: true } }
    },
  })
}
