import { contract } from '@qrctl/contract'
import { initServer } from '@ts-rest/express'
import type { Ctx } from '../../context.js'
import { notFound } from '../../errors.js'

const s = initServer()

// Placeholder until the showcases module lands (issue 6).
export function createShowcasesRouter(_ctx: Ctx) {
  const missing = async (): Promise<never> => {
    throw notFound('showcase')
  }
  return s.router(contract.showcases, {
    list: missing,
    create: missing,
    get: missing,
    update: missing,
    delete: missing,
  })
}
