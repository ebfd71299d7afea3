import type { ServerResponse } from 'node:http'
import { type ImageQuery, type PreviewQrCode, resolveType } from '@qrctl/contract'
import {
  createRenderCache,
  PngSizeError,
  type RenderedImage,
  type RenderFormat,
  renderCached,
  renderEtag,
} from '@qrctl/render'
import type { Ctx } from '../../context.js'
import { invalidField } from '../../errors.js'
import { assertScannable, savedLogo } from '../designs/designs.service.js'
import type { QrCodeRecord } from '../qr-codes/qr-codes.repository.js'
import { getQrCodeRecordOrThrow, shortLinkPlaceholder, symbolPayload } from '../qr-codes/qr-codes.service.js'

/** Repeat renders of an unchanged code and style come from here (bounded by entries and bytes). */
const cache = createRenderCache({ maxEntries: 2000, maxBytes: 128 * 1024 * 1024 })

export type ImageResult =
  | { notModified: true; etag: string }
  /** `attachment`: the file name for Content-Disposition, when the query asked for a download. */
  | { notModified: false; image: RenderedImage; attachment: string | undefined }

/**
 * Puts an image answer's headers on `res` and says what is left to send. Implemented once by
 * the transport layer (http/image-writer.ts) and handed to the routers that serve images, so
 * the modules never import http/.
 */
export type ImageAnswer = (
  res: ServerResponse,
  result: ImageResult,
  /** Undefined keeps what the request's begin set (every /api/v1 answer: no-store). */
  cacheControl?: string,
) => { status: 200; body: Buffer } | { status: 304; body: undefined }

/** A file name people recognise: the code's name, reduced to safe characters. */
export function imageFileName(name: string, format: RenderFormat): string {
  const base = name
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/[\s_]+/g, '-')
    .toLowerCase()
    .slice(0, 80)
  return `${base || 'qr-code'}.${format}`
}

/** The code's symbol as PNG, SVG or PDF; `notModified` when the caller already has these bytes. */
export async function renderQrCodeImage(
  ctx: Ctx,
  accountId: string,
  id: string,
  format: RenderFormat,
  query: ImageQuery,
  ifNoneMatch: string | undefined,
): Promise<ImageResult> {
  const code = await getQrCodeRecordOrThrow(ctx, accountId, id)
  return renderImage(ctx, format, symbolPayload(ctx, code), code, query, ifNoneMatch)
}

/**
 * The ETags of one code record's renders, by format, size and payload. The hot lookups hand
 * out the same record object until the database changes (db/hot-lookup.ts), so an image
 * fetched again skips normalising its style through zod, building the key and hashing it
 * (about 3 µs of a cached request's CPU); a record that is not kept any more takes its
 * entries with it.
 */
const etags = new WeakMap<object, Map<string, string>>()
function etagOf(
  format: RenderFormat,
  payload: string,
  code: Pick<QrCodeRecord, 'style'>,
  options: { size: number | undefined },
): string {
  let known = etags.get(code)
  if (!known) {
    known = new Map()
    etags.set(code, known)
  }
  const key = `${format} ${options.size ?? ''} ${payload}`
  let etag = known.get(key)
  if (etag === undefined) {
    etag = renderEtag(format, payload, code.style, options)
    if (known.size >= 16) known.clear()
    known.set(key, etag)
  }
  return etag
}

/** `renderQrCodeImage` for a code already found and its payload. */
export async function renderImage(
  ctx: Ctx,
  format: RenderFormat,
  payload: string,
  code: Pick<QrCodeRecord, 'name' | 'style'>,
  query: ImageQuery,
  ifNoneMatch: string | undefined,
): Promise<ImageResult> {
  const options = { size: query.size }
  const etag = etagOf(format, payload, code, options)
  if (ifNoneMatch?.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*'))
    return { notModified: true, etag }
  // A logo's bytes are needed only to draw; the ETag already names its asset (the style's assetId).
  const logo = code.style?.logo ? await savedLogo(ctx, code.style) : undefined
  const image = await renderCached(cache, format, payload, code.style, { ...options, logo }, etag).catch(
    (error: unknown) => {
      throw error instanceof PngSizeError ? invalidField('size', error.message) : error
    },
  )
  const attachment = query.download ? imageFileName(code.name, format) : undefined
  return { notModified: false, image, attachment }
}

/**
 * The server's own render of an unsaved design, for the dashboard's live preview (DESIGN §19):
 * decode-checked as a create is (400 `unscannable`, 404 for another account's logo), never
 * stored. A dynamic code is drawn with a short link of the real length.
 */
export async function renderPreview(
  ctx: Ctx,
  accountId: string,
  format: 'png' | 'svg',
  input: PreviewQrCode,
): Promise<ImageResult> {
  const payload =
    resolveType(input) === 'dynamic'
      ? shortLinkPlaceholder(ctx)
      : symbolPayload(ctx, { type: 'static', shortCode: null, ...input })
  await assertScannable(ctx, accountId, payload, input.style)
  const options = { size: input.size }
  const etag = renderEtag(format, payload, input.style ?? null, options)
  const logo = await savedLogo(ctx, input.style)
  const image = await renderCached(cache, format, payload, input.style ?? null, { ...options, logo }, etag)
  return { notModified: false, image, attachment: undefined }
}
