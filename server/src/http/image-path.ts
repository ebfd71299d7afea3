import type { IncomingMessage, ServerResponse } from 'node:http'
import { parse as parseQuery } from 'node:querystring'
import { API_PREFIX, contract } from '@qrctl/contract'
import type { RenderFormat } from '@qrctl/render'
import type { Ctx } from '../context.js'
import type { HotLookups } from '../db/hot-lookup.js'
import { keyByHashQuery, toKeyWithAccount } from '../modules/api-keys/api-keys.repository.js'
import { renderImage } from '../modules/images/images.service.js'
import { qrCodeQuery, toQrCodeRecord } from '../modules/qr-codes/qr-codes.repository.js'
import { symbolPayload } from '../modules/qr-codes/qr-codes.service.js'
import { writeError } from './error-handler.js'
import type { Gate } from './gate.js'
import { writeImage } from './image-writer.js'
import { beginRequest, finishRequest, handOver, type RequestStart } from './request.js'

/** `/api/v1/qr-codes/{id}/image.{format}`, exactly as the contract spells it; anything else is Express's. */
const IMAGE_PATH = new RegExp(`^${API_PREFIX}/qr-codes/([0-9A-Fa-f-]{36})/image\\.(png|svg|pdf)$`)
const ROUTES = {
  png: contract.qrCodes.imagePng,
  svg: contract.qrCodes.imageSvg,
  pdf: contract.qrCodes.imagePdf,
}

/**
 * The contract's query schema applied to a query string, as ts-rest applies it to Express's
 * `simple` parser's output. Image URLs repeat their few query strings, so answers are kept.
 */
const parsedQueries = new Map<string, ReturnType<typeof ROUTES.png.query.safeParse>>()
function parseImageQuery(format: RenderFormat, search: string) {
  const key = `${format}?${search}`
  let parsed = parsedQueries.get(key)
  if (!parsed) {
    parsed = ROUTES[format].query.safeParse(parseQuery(search))
    if (parsedQueries.size >= 1000) parsedQueries.clear()
    parsedQueries.set(key, parsed)
  }
  return parsed
}

export interface ImagePath {
  /**
   * Takes `GET /api/v1/qr-codes/{id}/image.*` and answers false for every other request. A
   * request it takes is answered here, or handed to `fallback` (the Express app) with what
   * was done so far (see `handOver`).
   */
  handle(req: IncomingMessage, res: ServerResponse, fallback: () => void): boolean
}

/**
 * QR code images on the bare node:http request, ahead of Express: the fast path of the
 * contract's `qrCodes.imagePng|imageSvg|imagePdf` routes (qr-codes.router.ts), which it shadows.
 *
 * Images are fetched again and again (embedded in pages, mails and print tools), and most
 * answers come from the render cache or are a 304. For those, Express's router and middleware
 * were most of the work: about 0.5 ms a request against 1 ms for rendering a PNG from scratch.
 * This path runs the same steps in the same order with the same functions: the request's
 * begin/finish (request.ts), the gate with the route's declared scope (gate.ts, the key found
 * on the hot lookups), path and query through the contract's schemas, the code through the
 * repository's query, the image through `renderImage` and the one image writer.
 *
 * Every refusal is Express's to write: a failed gate, a bad id or query, a code that is not
 * there are handed over with the request's start and the gate's outcome, so the one error
 * handler writes them, and nothing is timed, counted or rate-limited twice.
 */
export function createImagePath(ctx: Ctx, gate: Gate, lookups: HotLookups): ImagePath {
  const findKey = lookups.lookup((keyHash: string) => keyByHashQuery(ctx.db, keyHash), toKeyWithAccount)
  const findCode = lookups.lookup(
    (accountId: string, id: string) => qrCodeQuery(ctx.db, accountId, id),
    toQrCodeRecord,
  )

  const serve = async (
    req: IncomingMessage,
    res: ServerResponse,
    fallback: () => void,
    parts: { id: string; format: RenderFormat; search: string },
  ) => {
    const start: RequestStart = beginRequest(req, res)
    const route = ROUTES[parts.format]
    let auth: Awaited<ReturnType<Gate['pass']>>
    try {
      lookups.refresh()
      auth = await gate.pass(req, res, route.metadata.scope, findKey)
    } catch (error) {
      handOver(req, { start, gate: { error } })
      return fallback()
    }
    const params = route.pathParams.safeParse({ id: parts.id })
    const query = parseImageQuery(parts.format, parts.search)
    const code =
      params.success && query.success ? await findCodeOrUndefined(params.data.id, auth.accountId) : undefined
    if (!code || !query.success) {
      handOver(req, { start, gate: { auth } })
      return fallback()
    }
    let status: number
    try {
      const result = await renderImage(
        ctx,
        parts.format,
        symbolPayload(ctx, code),
        code,
        query.data,
        req.headers['if-none-match'],
      )
      // DESIGN §10: every /api/v1 answer is no-store (beginRequest set it); the ETag still
      // saves the bytes (304).
      writeImage(res, result)
      status = res.statusCode
    } catch (error) {
      status = writeError(ctx, res, error, start.id)
    }
    finishRequest(ctx, start, { method: 'GET', route: route.path, status, accountId: auth.accountId })
  }

  /** A lookup failure here fails again in Express, which answers it the usual way. */
  const handedToExpress = (error: unknown) => {
    ctx.logger.warn({ err: error }, 'image request handed to Express')
    return undefined
  }
  const findCodeOrUndefined = (id: string, accountId: string) => {
    try {
      const found = findCode(accountId, id)
      return found instanceof Promise ? found.catch(handedToExpress) : found
    } catch (error) {
      return handedToExpress(error)
    }
  }

  return {
    handle(req, res, fallback) {
      const url = req.url
      if (req.method !== 'GET' || !url?.startsWith(`${API_PREFIX}/qr-codes/`)) return false
      // A GET with a body is rare and Express has rules for bodies (415 unless JSON): its call.
      if (req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0')
        return false
      const queryAt = url.indexOf('?')
      const match = IMAGE_PATH.exec(queryAt === -1 ? url : url.slice(0, queryAt))
      if (!match) return false
      const parts = {
        id: match[1] as string,
        format: match[2] as RenderFormat,
        search: queryAt === -1 ? '' : url.slice(queryAt + 1),
      }
      serve(req, res, fallback, parts).catch((error: unknown) => {
        // Only a failure outside every answer (the metric, the log line) lands here.
        ctx.logger.error({ err: error }, 'image request failed')
        if (!res.writableEnded) res.destroy()
      })
      return true
    },
  }
}
