import { contract } from '@qrctl/contract'
import { initServer } from '@ts-rest/express'
import type { Ctx } from '../../context.js'
import * as apiKeys from './api-keys.service.js'

const s = initServer()

export function createApiKeysRouter(ctx: Ctx) {
  return s.router(contract.apiKeys, {
    // Only a read_write key manages keys: the contract's route metadata says so, the gate checks it.
    list: async ({ req }) => ({
      status: 200,
      body: { data: await apiKeys.listKeys(ctx, req.auth.accountId) },
    }),
    create: async ({ body, req }) => ({
      status: 201,
      body: { data: await apiKeys.createKey(ctx, req.auth.accountId, body) },
    }),
    revoke: async ({ params, req }) => {
      await apiKeys.revokeKey(ctx, req.auth.accountId, params.id)
      return { status: 200, body: { success: true } }
    },
    rotate: async ({ params, body, req }) => {
      const grace = body?.gracePeriodSeconds ?? 0
      return {
        status: 201,
        body: { data: await apiKeys.rotateKey(ctx, req.auth.accountId, params.id, grace) },
      }
    },
  })
}
