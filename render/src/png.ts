import { isDesigned, parseHexColor } from '@qrctl/contract'
import { encode } from 'fast-png'
import { sceneToPng } from './design/draw.js'
import { designScene } from './design/render.js'
import { normalizeStyle, type StyleInput } from './style.js'
import { createSymbol, type QrSymbol } from './symbol.js'

export const PNG_SIZE = { min: 64, max: 4096, default: 512 } as const

export interface PngOptions {
  /** Width and height in pixels, 64–4096 (default 512). */
  size?: number
  /** The PNG of `style.logo`'s asset (DESIGN §13). */
  logo?: Uint8Array | undefined
}

/** A PNG too small to give every module at least one pixel: it would not scan. */
export class PngSizeError extends RangeError {
  constructor(
    readonly size: number,
    readonly minSize: number,
  ) {
    super(
      `size ${size} px is too small for this code: it needs at least ${minSize} px (one pixel per module)`,
    )
    this.name = 'PngSizeError'
  }
}

/**
 * For each pixel along one axis, the symbol module it shows, or -1 for the quiet zone and the
 * padding. Modules get a whole number of pixels each (crisp, equal modules scan best) and the
 * symbol with its quiet zone is centred; the leftover pixels, fewer than one module's worth,
 * are background.
 */
function pixelToModule(symbolSize: number, margin: number, size: number): Int16Array {
  const total = symbolSize + 2 * margin
  const drawn = total * Math.floor(size / total)
  const offset = (size - drawn) >> 1
  const map = new Int16Array(size).fill(-1)
  for (let p = offset; p < offset + drawn; p++) {
    const module = Math.floor(((p - offset) * total) / drawn) - margin
    if (module >= 0 && module < symbolSize) map[p] = module
  }
  return map
}

/** 1 bit per pixel, rows packed MSB first as PNG wants them; 1 = dark module. */
function rasterize(symbol: QrSymbol, margin: number, size: number): Uint8Array {
  const map = pixelToModule(symbol.size, margin, size)
  const rowBytes = Math.ceil(size / 8)
  const bits = new Uint8Array(rowBytes * size)
  let previousRow = -1
  for (let y = 0; y < size; y++) {
    const row = map[y]!
    if (row < 0) continue
    const start = y * rowBytes
    if (row === previousRow) {
      bits.copyWithin(start, start - rowBytes, start)
      continue
    }
    previousRow = row
    const base = row * symbol.size
    for (let x = 0; x < size; x++) {
      const col = map[x]!
      if (col >= 0 && symbol.modules[base + col]) bits[start + (x >> 3)]! |= 0x80 >> (x & 7)
    }
  }
  return bits
}

/**
 * The code as a `size`×`size` PNG: a 2-colour palette at 1 bit per pixel, so the style's colours
 * are exact and the file is small and fast to encode. A style with design keys (DESIGN §13) is
 * drawn from its outlines instead, `size` px wide (a frame makes it taller).
 * @example renderPng('https://example.com', { margin: 2 }, { size: 1024 }) // Uint8Array of a 1024×1024 PNG
 */
export function renderPng(payload: string, style: StyleInput, options: PngOptions = {}): Uint8Array {
  const size = options.size ?? PNG_SIZE.default
  if (!Number.isInteger(size) || size < PNG_SIZE.min || size > PNG_SIZE.max)
    throw new RangeError(
      `size must be a whole number of pixels, ${PNG_SIZE.min}–${PNG_SIZE.max}, got ${size}`,
    )
  const s = normalizeStyle(style)
  if (isDesigned(s)) {
    // Shapes, gradients and frames are drawn as vector outlines and rasterised (DESIGN §13).
    const scene = designScene(payload, s, options.logo)
    if (size < scene.width) throw new PngSizeError(size, Math.ceil(scene.width))
    return sceneToPng(scene, size)
  }
  const symbol = createSymbol(payload, s.errorCorrectionLevel)
  const minSize = symbol.size + 2 * s.margin
  if (size < minSize) throw new PngSizeError(size, minSize)
  return encode({
    width: size,
    height: size,
    data: rasterize(symbol, s.margin, size),
    depth: 1,
    channels: 1,
    palette: [parseHexColor(s.backgroundColor), parseHexColor(s.foregroundColor)],
  })
}
