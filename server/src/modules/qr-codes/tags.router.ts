import { contract } from '@qrctl/contract'
import { initServer } from '@ts-rest/express'
import type { Ctx } from '../../context.js'
import { countTags } from './qr-code-tags.repository.js'

const s = initServer()

/** `GET /tags` (DESIGN §17): tags live on codes, so their queries stay in this module. */
export function createTagsRouter(ctx: Ctx) {
  return s.router(contract.tags, {
    list: async ({ req }) => ({ status: 200, body: { data: await countTags(ctx.db, req.auth.accountId) } }),
  })
}
