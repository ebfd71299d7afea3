import type { IncomingMessage, ServerResponse } from 'node:http'
import { parse as parseQuery } from 'node:querystring'
import { API_PREFIX, contract, type ImageQuery } from '@qrctl/contract'
import type { RenderFormat } from '@qrctl/render'
import { create as contentDisposition } from 'content-disposition'
import type { Ctx } from '../../context.js'
import { createSnapshot, prepareLookup, type Reader } from '../../db/reader.js'
import { AppError, rateLimited } from '../../errors.js'
import { writeError } from '../../http/error-handler.js'
import { httpDuration } from '../../http/metrics.js'
import { accessProblem, bearer, logRequest, setRateLimitHeaders } from '../../http/middleware.js'
import type { RateLimits } from '../../http/rate-limit.js'
import { requestIdFrom } from '../../lib/request-id.js'
import { findKeyByHash, keyByHashQuery, toKeyWithAccount } from '../api-keys/api-keys.repository.js'
import { type Auth, authenticate } from '../api-keys/api-keys.service.js'
import {
  findQrCode,
  type QrCodeRecord,
  qrCodeQuery,
  toQrCodeRecord,
} from '../qr-codes/qr-codes.repository.js'
import { symbolPayload } from '../qr-codes/qr-codes.service.js'
import { renderImage } from './images.service.js'

/** `/api/v1/qr-codes/{id}/image.{format}`, exactly as the contract spells it; anything else is Express's. */
const IMAGE_PATH = new RegExp(`^${API_PREFIX}/qr-codes/([0-9A-Fa-f-]{36})/image\\.(png|svg|pdf)$`)
const ROUTES = {
  png: contract.qrCodes.imagePng,
  svg: contract.qrCodes.imageSvg,
  pdf: contract.qrCodes.imagePdf,
}

/** The route label of metrics and logs, as Express names it. */
const ROUTE_NAMES = { png: ROUTES.png.path, svg: ROUTES.svg.path, pdf: ROUTES.pdf.path }

/** The request-duration series of a format and status, looked up once rather than per request. */
const timers = new Map<string, Observer>()
function timer(format: RenderFormat, status: number): Observer {
  const key = `${format} ${status}`
  let found = timers.get(key)
  if (!found) {
    found = httpDuration.labels({ method: 'GET', route: ROUTE_NAMES[format], status: String(status) })
    timers.set(key, found)
  }
  return found
}
type Observer = ReturnType<typeof httpDuration.labels>

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

export interface ImageHandler {
  /**
   * Takes `GET /api/v1/qr-codes/{id}/image.*` and answers false for every other request. A
   * request it takes is answered here, or handed to `fallback` (the Express app) before
   * anything is written or counted.
   */
  handle(req: IncomingMessage, res: ServerResponse, fallback: () => void): boolean
}

/** What the bare path knows of a request once it has decided to answer it. */
interface Accepted {
  auth: Auth
  format: RenderFormat
  query: ImageQuery
  payload: string
  code: Pick<QrCodeRecord, 'name' | 'style'>
}

/**
 * The key and the code, found by the repositories' own queries: on SQLite on the reader, kept
 * until the database changes (a revoked key or an edited code is seen by the next request);
 * on PostgreSQL through Kysely.
 */
function createLookups(ctx: Ctx, reader: Reader | undefined) {
  if (!reader) {
    return {
      refresh: () => {},
      findKey: (keyHash: string) => findKeyByHash(ctx.db, keyHash),
      findCode: (accountId: string, id: string) => findQrCode(ctx.db, accountId, id),
    }
  }
  const keyRow = prepareLookup(reader, (keyHash: string) => keyByHashQuery(ctx.db, keyHash))
  const codeRow = prepareLookup(reader, (accountId: string, id: string) => qrCodeQuery(ctx.db, accountId, id))
  const snapshot = createSnapshot(reader)
  return {
    refresh: () => snapshot.refresh(),
    findKey: snapshot.memo((keyHash: string) => {
      const row = keyRow(keyHash)
      return row && toKeyWithAccount(row)
    }),
    findCode: snapshot.memo((accountId: string, id: string) => {
      const row = codeRow(accountId, id)
      return row && toQrCodeRecord(row)
    }),
  }
}

/**
 * QR code images on the bare node:http request, ahead of Express, like short links.
 *
 * Images are fetched again and again (they are embedded in pages, mails and print tools), and
 * most answers come from the render cache or are a 304. For those, Express's router and
 * middleware were most of the work: about 0.5 ms a request against 1 ms for rendering a PNG
 * from scratch. This path does the same things in the same order with the same functions:
 * the key through `authenticate` (on the read-only connection), the plan and scope through
 * `accessProblem`, path and query through the contract's schemas, the code through the
 * repository's query, then one point of the key's rate limit, and the image through
 * `renderImage`. It keeps X-Request-Id, the rate-limit headers, the metrics and the log line.
 *
 * Only what it can answer exactly as Express would is answered here: any request that would
 * fail before the rate limit is spent (no or an unknown key, a plan or scope refusal, a bad
 * id or query, a code that is not there) goes to Express untouched, so every such error is
 * still written by the one error handler, and nothing is counted twice.
 */
export function createImageHandler(ctx: Ctx, limits: RateLimits, reader: Reader | undefined): ImageHandler {
  const { refresh, findKey, findCode } = createLookups(ctx, reader)

  /** The request's parts when this path can answer it, undefined when Express should. */
  const accept = async (req: IncomingMessage, id: string, format: RenderFormat, search: string) => {
    const secret = bearer(req.headers.authorization)
    if (!secret) return undefined
    const params = ROUTES[format].pathParams.safeParse({ id })
    const query = parseImageQuery(format, search)
    if (!params.success || !query.success) return undefined
    refresh()
    const auth = await authenticate(ctx, secret, findKey)
    if (!auth || accessProblem(auth, req.method)) return undefined
    const code = await findCode(auth.accountId, params.data.id)
    if (!code) return undefined
    return { auth, format, query: query.data, payload: symbolPayload(ctx, code), code } satisfies Accepted
  }

  const answer = async (req: IncomingMessage, res: ServerResponse, accepted: Accepted) => {
    const { auth, format, query, payload, code } = accepted
    const state = await limits.consume(`key:${auth.keyId}`, auth.rateLimitPerMinute ?? limits.defaultLimit)
    setRateLimitHeaders(res, state)
    if (!state.allowed) throw rateLimited(state.reset)
    const result = await renderImage(format, payload, code, query, req.headers['if-none-match'])
    res.setHeader('Cache-Control', 'private, no-cache')
    if (result.notModified) {
      res.writeHead(304, { ETag: result.etag })
      return void res.end()
    }
    const { image } = result
    res.setHeader('ETag', image.etag)
    res.setHeader('Content-Type', image.contentType)
    if (result.attachment) res.setHeader('Content-Disposition', contentDisposition(result.attachment))
    res.writeHead(200, { 'Content-Length': String(image.body.byteLength) })
    res.end(image.body)
  }

  const serve = async (
    req: IncomingMessage,
    res: ServerResponse,
    fallback: () => void,
    parts: { id: string; format: RenderFormat; search: string },
  ) => {
    const started = performance.now()
    let accepted: Accepted | undefined
    try {
      accepted = await accept(req, parts.id, parts.format, parts.search)
    } catch (error) {
      // Whatever failed (a payload the code cannot encode, a database error) fails again in
      // Express, which answers it the usual way.
      if (!(error instanceof AppError)) ctx.logger.warn({ err: error }, 'image request handed to Express')
      accepted = undefined
    }
    if (!accepted) return fallback()
    const requestId = requestIdFrom(req.headers['x-request-id'])
    res.setHeader('X-Request-Id', requestId)
    let status: number
    try {
      await answer(req, res, accepted)
      status = res.statusCode
    } catch (error) {
      status = writeError(ctx, res, error, requestId)
    }
    const seconds = (performance.now() - started) / 1000
    timer(parts.format, status).observe(seconds)
    logRequest(ctx, {
      requestId,
      method: 'GET',
      route: ROUTE_NAMES[parts.format],
      status,
      ms: seconds * 1000,
      accountId: accepted.auth.accountId,
    })
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
        // Only a failure outside both answers (metrics, the log line) lands here.
        ctx.logger.error({ err: error }, 'image request failed')
        if (!res.writableEnded) res.destroy()
      })
      return true
    },
  }
}
