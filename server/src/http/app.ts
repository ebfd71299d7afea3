import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { API_PREFIX, contract } from '@qrctl/contract'
import { createExpressEndpoints } from '@ts-rest/express'
import express, { type Express } from 'express'
import swaggerUi from 'swagger-ui-express'
import type { Ctx } from '../context.js'
import { isDatabaseReady } from '../db/database.js'
import { createApiKeysRouter } from '../modules/api-keys/api-keys.router.js'
import { idempotency } from '../modules/idempotency/idempotency.middleware.js'
import { createQrCodesRouter } from '../modules/qr-codes/qr-codes.router.js'
import { createShowcasePagesRouter } from '../modules/showcase-pages/showcase-pages.router.js'
import { createShowcasesRouter } from '../modules/showcases/showcases.router.js'
import { apiNotFound, errorHandler, onRequestValidationError } from './error-handler.js'
import { metricsHandler, metricsMiddleware } from './metrics.js'
import { apiGate, checkJsonBody, requestId, requestLog, requireJsonBody } from './middleware.js'
import type { RateLimits } from './rate-limit.js'

const require = createRequire(import.meta.url)

/** The committed OpenAPI document (contract/openapi.json), served as is. */
function loadOpenApi(): Record<string, unknown> {
  return JSON.parse(readFileSync(require.resolve('@qrctl/contract/openapi.json'), 'utf8')) as Record<
    string,
    unknown
  >
}

export interface AppDeps {
  ctx: Ctx
  limits: RateLimits
}

export function createApp({ ctx, limits }: AppDeps): Express {
  const app = express()
  app.disable('x-powered-by')
  app.set('trust proxy', ctx.config.trustProxyHops)
  app.set('query parser', 'simple')
  app.use(requestId)
  app.use(metricsMiddleware)
  app.use(requestLog(ctx))

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' })
  })
  app.get('/readyz', async (_req, res) => {
    const ready = await isDatabaseReady(ctx.db)
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'database unavailable' })
  })
  app.get('/metrics', metricsHandler)

  const openApi = { ...loadOpenApi(), servers: [{ url: ctx.config.publicBaseUrl }] }
  app.get(`${API_PREFIX}/openapi.json`, (_req, res) => {
    res.json(openApi)
  })
  app.use('/docs', swaggerUi.serve, swaggerUi.setup(openApi, { customSiteTitle: 'qrctl API reference' }))

  app.use(createShowcasePagesRouter(ctx))

  const api = express.Router()
  api.use(apiGate(ctx, limits))
  api.use(requireJsonBody)
  api.use(express.json({ limit: '1mb', type: ['application/json', 'application/*+json'] }))
  api.use(checkJsonBody)
  api.use(idempotency(ctx))
  app.use(API_PREFIX, api)

  createExpressEndpoints(
    contract,
    {
      qrCodes: createQrCodesRouter(ctx),
      showcases: createShowcasesRouter(ctx),
      apiKeys: createApiKeysRouter(ctx),
    },
    app,
    { requestValidationErrorHandler: onRequestValidationError },
  )
  app.use(API_PREFIX, apiNotFound)
  app.use(apiNotFound)
  app.use(errorHandler(ctx))
  return app
}
