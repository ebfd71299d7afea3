import { contract } from '@qrctl/contract'
import { initServer } from '@ts-rest/express'
import type { Ctx } from '../../context.js'
import { answerOnCommit } from '../idempotency/idempotency.middleware.js'
import * as webhooks from './webhooks.service.js'

const s = initServer()

export function createWebhooksRouter(ctx: Ctx) {
  return s.router(contract.webhooks, {
    list: async ({ query, req }) => ({
      status: 200,
      body: await webhooks.listWebhooks(ctx, req.auth.accountId, query),
    }),
    create: async ({ body, req }) => ({
      status: 201,
      body: { data: await webhooks.createWebhook(ctx, req.auth.accountId, body, answerOnCommit(req, 201)) },
    }),
    get: async ({ params, req }) => ({
      status: 200,
      body: { data: await webhooks.getWebhookOrThrow(ctx, req.auth.accountId, params.id) },
    }),
    update: async ({ params, body, req }) => ({
      status: 200,
      body: { data: await webhooks.updateWebhook(ctx, req.auth.accountId, params.id, body) },
    }),
    delete: async ({ params, req }) => {
      await webhooks.deleteWebhook(ctx, req.auth.accountId, params.id)
      return { status: 200, body: { success: true } }
    },
    test: async ({ params, req }) => ({
      status: 202,
      body: {
        data: await webhooks.testWebhook(ctx, req.auth.accountId, params.id, answerOnCommit(req, 202)),
      },
    }),
    deliveries: async ({ params, query, req }) => ({
      status: 200,
      body: await webhooks.listDeliveries(ctx, req.auth.accountId, params.id, query),
    }),
    redeliver: async ({ params, req }) => ({
      status: 202,
      body: {
        data: await webhooks.redeliver(
          ctx,
          req.auth.accountId,
          params.id,
          params.deliveryId,
          answerOnCommit(req, 202),
        ),
      },
    }),
    rotateSecret: async ({ params, req }) => ({
      status: 201,
      body: {
        data: await webhooks.rotateSecret(ctx, req.auth.accountId, params.id, answerOnCommit(req, 201)),
      },
    }),
  })
}
