import type { ServerResponse } from 'node:http'
import { create as contentDisposition } from 'content-disposition'
import type { ImageAnswer, ImageResult } from '../modules/images/images.service.js'

/**
 * The one image writer's headers, for every path that serves a QR image (the API's image
 * routes in Express, the fast image path, a showcase's page image): the ETag (a matching
 * If-None-Match was already turned into `notModified`), the type, the download name, and a
 * `Cache-Control` only when given: every /api/v1 answer already carries the request's
 * `no-store` (request.ts), so only a page image outside the API passes its own. Returns what
 * is left to send, for Express (`res.send`) or the bare response.
 */
export const imageAnswer: ImageAnswer = (res, result, cacheControl) => {
  if (cacheControl !== undefined) res.setHeader('Cache-Control', cacheControl)
  if (result.notModified) {
    res.setHeader('ETag', result.etag)
    return { status: 304, body: undefined }
  }
  const { image } = result
  res.setHeader('ETag', image.etag)
  res.setHeader('Content-Type', image.contentType)
  if (result.attachment) res.setHeader('Content-Disposition', contentDisposition(result.attachment))
  return {
    status: 200,
    body: Buffer.from(image.body.buffer, image.body.byteOffset, image.body.byteLength),
  }
}

/** `imageAnswer`, written on the bare response (the fast path). */
export function writeImage(res: ServerResponse, result: ImageResult, cacheControl?: string): void {
  const { status, body } = imageAnswer(res, result, cacheControl)
  if (!body) {
    res.writeHead(status)
    return void res.end()
  }
  res.writeHead(status, { 'Content-Length': String(body.byteLength) })
  res.end(body)
}
