import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { API_PREFIX, contract } from '@qrctl/contract'
import { createExpressEndpoints } from '@ts-rest/express'
import express, { type Express, type RequestHandler } from 'express'
import swaggerUi from 'swagger-ui-express'
import type { Ctx } from '../context.js'
import { isDatabaseReady } from '../db/database.js'
import { createAnalyticsRouter } from '../modules/analytics/analytics.router.js'
import { createApiKeysRouter } from '../modules/api-keys/api-keys.router.js'
import { createAssetsRouter } from '../modules/assets/assets.router.js'
import { idempotency } from '../modules/idempotency/idempotency.middleware.js'
import { createQrCodesRouter } from '../modules/qr-codes/qr-codes.router.js'
import { createTagsRouter } from '../modules/qr-codes/tags.router.js'
import { createSessionsRouter, FAILED_SIGN_INS_PER_MINUTE } from '../modules/sessions/sessions.router.js'
import { createShowcasePagesRouter } from '../modules/showcase-pages/showcase-pages.router.js'
import { createShowcasesRouter } from '../modules/showcases/showcases.router.js'
import { createWebhooksRouter } from '../modules/webhooks/webhooks.router.js'
import { clientAddress } from './client-address.js'
import { apiNotFound, errorHandler, onRequestValidationError } from './error-handler.js'
import type { Gate } from './gate.js'
import { checkMatchedRouteScope, routeScopes } from './gate.js'
import { imageAnswer } from './image-writer.js'
import { metricsHandler } from './metrics.js'
import { apiGate, checkJsonBody, requestSteps, requireJsonBody } from './middleware.js'
import type { RateLimits } from './rate-limit.js'
import { appPageErrors, createWebAppRouter, type WebDist } from './web-app.js'

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
  gate: Gate
  limits: RateLimits
  /** The built dashboard (default: @qrctl/web's dist, found as Node finds the package). */
  webDist?: WebDist
}

/**
 * /docs runs Swagger UI's own scripts and stylesheets from this server (no CDN), with inline
 * `<style>` blocks in its page and data: icons; nothing else, and never inside a frame.
 */
const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const docsHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', DOCS_CSP)
  res.setHeader('X-Frame-Options', 'DENY')
  next()
}

/**
 * Every public path of the server, in one read (server.ts puts two fast paths ahead of it):
 *
 *   GET|HEAD /r/{shortCode}                 http/redirect-path.ts (no Express route)
 *   GET /api/v1/qr-codes/{id}/image.*       http/image-path.ts first; what it hands over, below
 *   GET /healthz, /readyz, /metrics         here
 *   GET /api/v1/openapi.json, /docs         here
 *   GET /s/{slug}, /s/{slug}/qr.*, /s/_assets/*   modules/showcase-pages
 *   GET|POST /app/login, POST /app/logout   modules/sessions (sign-in form, login links, sign-out)
 *   GET /app/assets/*, GET /app, /app/*     http/web-app.ts (the dashboard; signed in only)
 *   /api/v1/*                               the contract's routes (gate, body checks, idempotency first)
 */
export function createApp({ ctx, gate, limits, webDist }: AppDeps): Express {
  const app = express()
  app.disable('x-powered-by')
  // The client address is http/client-address.ts's rule, used by the gate and the scans.
  app.set('query parser', 'simple')
  app.use(requestSteps(ctx))

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
  app.use(
    '/docs',
    docsHeaders,
    swaggerUi.serve,
    swaggerUi.setup(openApi, { customSiteTitle: 'qrctl API reference' }),
  )

  app.use(createShowcasePagesRouter(ctx, { imageAnswer }))

  app.use(
    createSessionsRouter(ctx, {
      throttle: {
        take: async (address) => {
          const state = await limits.consume(address, FAILED_SIGN_INS_PER_MINUTE)
          return { allowed: state.allowed, retryAfter: state.reset }
        },
        giveBack: (address) => limits.refund(address, FAILED_SIGN_INS_PER_MINUTE),
      },
      clientAddress: (req) => clientAddress(req, ctx.config.trustProxyHops),
    }),
  )
  app.use(createWebAppRouter(ctx, webDist))
  app.use('/app', appPageErrors(ctx))

  const api = express.Router()
  api.use(apiGate(gate, routeScopes()))
  api.use(requireJsonBody)
  api.use(express.json({ limit: '1mb', type: ['application/json', 'application/*+json'] }))
  api.use(checkJsonBody)
  api.use(idempotency(ctx))
  app.use(API_PREFIX, api)

  createExpressEndpoints(
    contract,
    {
      qrCodes: createQrCodesRouter(ctx, { imageAnswer }),
      showcases: createShowcasesRouter(ctx),
      apiKeys: createApiKeysRouter(ctx),
      webhooks: createWebhooksRouter(ctx),
      tags: createTagsRouter(ctx),
      assets: createAssetsRouter(ctx, { imageAnswer }),
      analytics: createAnalyticsRouter(ctx),
    },
    app,
    {
      requestValidationErrorHandler: onRequestValidationError,
      globalMiddleware: [(req, _res, next) => next(checkMatchedRouteScope(req))],
    },
  )
  app.use(API_PREFIX, apiNotFound)
  app.use(apiNotFound)
  app.use(errorHandler(ctx))
  return app
}
