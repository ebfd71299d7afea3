import { hash } from 'node:crypto'
import { renderPdf } from './pdf.js'
import { PNG_SIZE, renderPng } from './png.js'
import { normalizeStyle, type StyleInput } from './style.js'
import { renderSvg } from './svg.js'

export type RenderFormat = 'png' | 'svg' | 'pdf'

export const RENDER_CONTENT_TYPES: Record<RenderFormat, string> = {
  png: 'image/png',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
}

/**
 * Bumped whenever a renderer's output changes, so ETags (which hash the request, not the bytes)
 * change with it and no client keeps an image drawn by an older renderer.
 */
export const RENDERER_VERSION = 2

export interface RenderedImage {
  format: RenderFormat
  body: Uint8Array
  contentType: string
  /** Strong ETag, quoted, ready for the header: `"…"`. */
  etag: string
}

export interface RenderRequestOptions {
  /** PNG only: width and height in pixels (default 512). */
  size?: number
  /** The PNG of `style.logo`'s asset; the style's `assetId` names it in the cache key. */
  logo?: Uint8Array | undefined
}

/** The identity of a rendering: format, payload, the style with its defaults filled, and the PNG size. */
function renderKey(
  format: RenderFormat,
  payload: string,
  style: StyleInput,
  options: RenderRequestOptions,
): string {
  const { foregroundColor, backgroundColor, errorCorrectionLevel, margin, ...design } = normalizeStyle(style)
  const size = format === 'png' ? (options.size ?? PNG_SIZE.default) : 0
  const key: unknown[] = [
    RENDERER_VERSION,
    format,
    foregroundColor,
    backgroundColor,
    errorCorrectionLevel,
    margin,
    size,
    payload,
  ]
  // The design keys (DESIGN §13), in the order normalizeStyle writes them; a v1 style keeps its key.
  if (Object.keys(design).length > 0) key.push(design)
  return JSON.stringify(key)
}

/**
 * The ETag a rendering gets, without rendering it: SHA-1 of the key, base64url. Lets a server
 * answer `If-None-Match` with 304 before touching the cache or the renderer.
 * @example renderEtag('png', 'https://example.com', null, { size: 256 }) // '"Xb3…"'
 */
export function renderEtag(
  format: RenderFormat,
  payload: string,
  style: StyleInput,
  options: RenderRequestOptions = {},
): string {
  return `"${hash('sha1', renderKey(format, payload, style, options), 'base64url')}"`
}

export interface RenderCacheOptions {
  /** Most images kept (default 1000). */
  maxEntries?: number
  /** Most bytes of image bodies kept (default 64 MiB). */
  maxBytes?: number
}

export interface RenderCacheStats {
  entries: number
  bytes: number
  hits: number
  misses: number
}

/** `etag`, when the caller already computed it with `renderEtag`, saves computing it again. */
export interface RenderCache {
  png(payload: string, style: StyleInput, size?: number, etag?: string, logo?: Uint8Array): RenderedImage
  svg(payload: string, style: StyleInput, etag?: string, logo?: Uint8Array): RenderedImage
  pdf(payload: string, style: StyleInput, etag?: string, logo?: Uint8Array): Promise<RenderedImage>
  stats(): RenderCacheStats
  clear(): void
}

/**
 * A bounded in-process LRU of rendered images, keyed by what decides the bytes (format, payload,
 * normalized style, PNG size); the least recently used entries go first when either bound is
 * reached. An image larger than `maxBytes` is returned but not kept. Concurrent misses of the
 * same PDF render it twice; the results are identical.
 * @example const cache = createRenderCache({ maxBytes: 32 * 1024 * 1024 }); const { body, etag } = cache.png(payload, style, 512)
 */
export function createRenderCache(options: RenderCacheOptions = {}): RenderCache {
  const maxEntries = options.maxEntries ?? 1000
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024
  const entries = new Map<string, RenderedImage>()
  let bytes = 0
  let hits = 0
  let misses = 0

  const lookup = (etag: string): RenderedImage | undefined => {
    const found = entries.get(etag)
    if (!found) {
      misses++
      return undefined
    }
    hits++
    entries.delete(etag)
    entries.set(etag, found)
    return found
  }

  const store = (image: RenderedImage): RenderedImage => {
    if (image.body.byteLength > maxBytes || maxEntries < 1) return image
    // Two concurrent misses of the same PDF both store it: replace the first, counting it once.
    const previous = entries.get(image.etag)
    if (previous) {
      entries.delete(image.etag)
      bytes -= previous.body.byteLength
    }
    entries.set(image.etag, image)
    bytes += image.body.byteLength
    for (const [etag, oldest] of entries) {
      if (entries.size <= maxEntries && bytes <= maxBytes) break
      entries.delete(etag)
      bytes -= oldest.body.byteLength
    }
    return image
  }

  const image = (format: RenderFormat, body: Uint8Array, etag: string): RenderedImage => ({
    format,
    body,
    contentType: RENDER_CONTENT_TYPES[format],
    etag,
  })

  return {
    png(payload, style, size = PNG_SIZE.default, etag = renderEtag('png', payload, style, { size }), logo) {
      return lookup(etag) ?? store(image('png', renderPng(payload, style, { size, logo }), etag))
    },
    svg(payload, style, etag = renderEtag('svg', payload, style), logo) {
      return (
        lookup(etag) ??
        store(image('svg', new TextEncoder().encode(renderSvg(payload, style, { logo })), etag))
      )
    },
    async pdf(payload, style, etag = renderEtag('pdf', payload, style), logo) {
      return lookup(etag) ?? store(image('pdf', await renderPdf(payload, style, { logo }), etag))
    },
    stats: () => ({ entries: entries.size, bytes, hits, misses }),
    clear() {
      entries.clear()
      bytes = 0
    },
  }
}

/**
 * One entry point for every format, for callers that pick the format at run time.
 * @example await renderCached(cache, 'svg', payload, style) // { format: 'svg', body, contentType: 'image/svg+xml', etag }
 */
export async function renderCached(
  cache: RenderCache,
  format: RenderFormat,
  payload: string,
  style: StyleInput,
  options: RenderRequestOptions = {},
  etag?: string,
): Promise<RenderedImage> {
  if (format === 'png') return cache.png(payload, style, options.size, etag, options.logo)
  if (format === 'svg') return cache.svg(payload, style, etag, options.logo)
  return cache.pdf(payload, style, etag, options.logo)
}
