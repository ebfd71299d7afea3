import { contract } from '@qrctl/contract'
import { initServer } from '@ts-rest/express'
import { create as contentDisposition } from 'content-disposition'
import type { Ctx } from '../../context.js'
import { exportScans } from './analytics.export.js'
import { getAccountAnalytics, getScans } from './analytics.service.js'
import { createExportSlots, exportLimit } from './export-slots.js'

const s = initServer()

export function createAnalyticsRouter(ctx: Ctx) {
  const exportSlots = createExportSlots(exportLimit(ctx))
  return s.router(contract.analytics, {
    account: async ({ query, req }) => ({
      status: 200,
      body: { data: await getAccountAnalytics(ctx, req.auth.accountId, query) },
    }),
    export: async ({ query, req, res }) => {
      const { filename, body } = await exportScans(ctx, exportSlots, req.auth.accountId, query)
      res.setHeader('Content-Type', 'text/csv; charset=utf-8')
      res.setHeader('Content-Disposition', contentDisposition(filename))
      // Headers are gone once rows flow: a failure now can only cut the download short.
      body.once('error', (error) => {
        ctx.logger.error({ err: error, requestId: req.id }, 'export failed mid-stream')
        res.destroy(error)
      })
      // A client that goes away mid-download: stop reading (and, on PostgreSQL, close the
      // cursor and free its connection) rather than read on to the end for nobody.
      res.once('close', () => body.destroy())
      return { status: 200, body: body as unknown as string }
    },
    scans: async ({ params, query, req }) => ({
      status: 200,
      body: { data: await getScans(ctx, req.auth.accountId, params.id, query) },
    }),
  })
}
