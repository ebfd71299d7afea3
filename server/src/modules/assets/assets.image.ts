import { ASSET_LIMITS, type CreateAsset } from '@qrctl/contract'
import { Resvg } from '@resvg/resvg-js'
import sharp, { type Metadata } from 'sharp'
import { invalidField } from '../../errors.js'

export interface StoredImage {
  png: Buffer
  width: number
  height: number
}

type UploadType = CreateAsset['contentType']

/** What the first bytes of each raster type are (the file signatures). */
const SIGNATURES: Record<Exclude<UploadType, 'image/svg+xml'>, (b: Buffer) => boolean> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/webp': (b) => b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP',
}
const SHARP_FORMAT: Record<Exclude<UploadType, 'image/svg+xml'>, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/webp': 'webp',
}

const notType = (type: UploadType) => invalidField('data', `The bytes are not a valid ${type} image`)
const tooLarge = (width: number, height: number) =>
  invalidField(
    'data',
    `The image is ${width}×${height} px; at most ${ASSET_LIMITS.maxPixels}×${ASSET_LIMITS.maxPixels} px are accepted`,
  )

/**
 * An upload decoded and re-encoded as PNG (DESIGN §13): the type checked against the bytes, the
 * byte and pixel limits checked before anything is decoded (the header alone says the size, so a
 * decompression bomb is refused unread), scaled down to fit 1024×1024 and never up, metadata
 * dropped. Every problem is a 400 naming `data`.
 */
export async function reencodeImage(type: UploadType, bytes: Buffer): Promise<StoredImage> {
  if (bytes.length > ASSET_LIMITS.maxBytes)
    throw invalidField(
      'data',
      `The image is ${bytes.length} bytes; at most ${ASSET_LIMITS.maxBytes} are accepted`,
    )
  if (type === 'image/svg+xml') return rasteriseSvg(bytes)
  if (!SIGNATURES[type](bytes)) throw notType(type)
  const options = {
    limitInputPixels: ASSET_LIMITS.maxPixels * ASSET_LIMITS.maxPixels,
    failOn: 'error' as const,
  }
  let meta: Metadata
  try {
    meta = await sharp(bytes, options).metadata()
  } catch {
    throw notType(type)
  }
  if (meta.format !== SHARP_FORMAT[type] || !meta.width || !meta.height) throw notType(type)
  if (meta.width > ASSET_LIMITS.maxPixels || meta.height > ASSET_LIMITS.maxPixels)
    throw tooLarge(meta.width, meta.height)
  try {
    const { data, info } = await sharp(bytes, options)
      .rotate() // applies the EXIF orientation before the metadata is dropped
      .resize(ASSET_LIMITS.storedMaxPixels, ASSET_LIMITS.storedMaxPixels, {
        fit: 'inside',
        withoutEnlargement: true,
      })
      .png()
      .toBuffer({ resolveWithObject: true })
    return { png: data, width: info.width, height: info.height }
  } catch {
    throw notType(type)
  }
}

/**
 * An SVG rasterised by resvg, which runs no script and fetches nothing over the network. It
 * would read local files an `<image>` names, so any reference that is not inside the document
 * (`#id`) or a data: URL is refused, and so are DTDs (external entities).
 */
function rasteriseSvg(bytes: Buffer): Promise<StoredImage> {
  const text = bytes.toString('utf8')
  if (!/^\s*(?:\uFEFF)?(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<svg[\s>]/i.test(text))
    throw notType('image/svg+xml')
  if (/<!DOCTYPE|<!ENTITY/i.test(text))
    throw invalidField('data', 'SVG with a DOCTYPE or entities is not accepted')
  for (const match of text.matchAll(/(?:xlink:)?href\s*=\s*["']\s*([^"']*)["']/gi)) {
    const target = match[1] ?? ''
    if (!target.startsWith('#') && !/^data:image\/(?:png|jpeg|gif|webp);/i.test(target))
      throw invalidField('data', 'The SVG references something outside itself; embed images as data: URLs')
  }
  if (/url\(\s*["']?(?!#)/i.test(text))
    throw invalidField('data', 'The SVG references something outside itself (a CSS url())')
  let svg: Resvg
  try {
    svg = new Resvg(text, { font: { loadSystemFonts: false } })
  } catch {
    throw notType('image/svg+xml')
  }
  const { width, height } = svg
  if (!(width >= 1 && height >= 1)) throw notType('image/svg+xml')
  if (width > ASSET_LIMITS.maxPixels || height > ASSET_LIMITS.maxPixels)
    throw tooLarge(Math.ceil(width), Math.ceil(height))
  const scale = Math.min(1, ASSET_LIMITS.storedMaxPixels / Math.max(width, height))
  const fitted = new Resvg(text, {
    font: { loadSystemFonts: false },
    fitTo: { mode: 'width', value: Math.max(1, Math.round(width * scale)) },
  }).render()
  return sharp(fitted.asPng())
    .png()
    .toBuffer({ resolveWithObject: true })
    .then(({ data, info }) => ({ png: data, width: info.width, height: info.height }))
}
