import { hash } from 'node:crypto'
import { convertIndexedToRgb, type DecodedPng, decode } from 'fast-png'

/** 8-bit RGBA, straight (not premultiplied) alpha, rows top to bottom. */
export interface RgbaImage {
  width: number
  height: number
  data: Uint8Array
}

/** A logo PNG decoded to 8-bit RGBA, whatever its colour type and bit depth. */
export function decodeLogo(png: Uint8Array): RgbaImage {
  const image = decode(png)
  const { width, height } = image
  const out = new Uint8Array(width * height * 4)
  if (image.palette) {
    const rgb = convertIndexedToRgb(image)
    const c = image.palette[0]?.length === 4 ? 4 : 3
    for (let i = 0, s = 0, d = 0; i < width * height; i++, s += c, d += 4) {
      out[d] = rgb[s]!
      out[d + 1] = rgb[s + 1]!
      out[d + 2] = rgb[s + 2]!
      out[d + 3] = c === 4 ? rgb[s + 3]! : 255
    }
    return { width, height, data: out }
  }
  const c = image.channels
  const sample = sampler(image)
  for (let y = 0, d = 0; y < height; y++) {
    for (let x = 0; x < width; x++, d += 4) {
      const i = x * c
      if (c <= 2) {
        out[d] = out[d + 1] = out[d + 2] = sample(y, i)
        out[d + 3] = c === 2 ? sample(y, i + 1) : 255
      } else {
        out[d] = sample(y, i)
        out[d + 1] = sample(y, i + 1)
        out[d + 2] = sample(y, i + 2)
        out[d + 3] = c === 4 ? sample(y, i + 3) : 255
      }
    }
  }
  return { width, height, data: out }
}

/** Sample `i` of row `y` as 0–255, for 1-, 2-, 4-, 8- and 16-bit samples. */
function sampler({ data, depth, width, channels }: DecodedPng): (y: number, i: number) => number {
  const perRow = width * channels
  if (depth === 8) return (y, i) => data[y * perRow + i]!
  if (depth === 16) return (y, i) => data[y * perRow + i]! >> 8
  // Packed samples: each row starts on a byte, the first sample in the high bits.
  const rowBytes = Math.ceil((perRow * depth) / 8)
  const max = (1 << depth) - 1
  return (y, i) => {
    const bit = i * depth
    const byte = data[y * rowBytes + (bit >> 3)]!
    return Math.round((((byte >> (8 - depth - (bit & 7))) & max) * 255) / max)
  }
}

/**
 * `image` fitted into a `box`×`box` square, aspect kept: averaged over each pixel's footprint
 * when shrinking (alpha-weighted, so transparent pixels lend no colour), bilinear when growing.
 */
export function fitImage(image: RgbaImage, box: number): RgbaImage {
  const fit = box / Math.max(image.width, image.height)
  const width = Math.max(1, Math.round(image.width * fit))
  const height = Math.max(1, Math.round(image.height * fit))
  const sx = image.width / width
  const sy = image.height / height
  const out = new Uint8Array(width * height * 4)
  const src = image.data
  const sum = [0, 0, 0, 0]
  const add = (x: number, y: number, weight: number) => {
    const s = (y * image.width + x) * 4
    const w = (weight * src[s + 3]!) / 255
    sum[0]! += src[s]! * w
    sum[1]! += src[s + 1]! * w
    sum[2]! += src[s + 2]! * w
    sum[3]! += weight * src[s + 3]!
  }
  for (let y = 0, d = 0; y < height; y++) {
    for (let x = 0; x < width; x++, d += 4) {
      sum.fill(0)
      let total = 0
      if (sx > 1 || sy > 1) {
        const x1 = Math.min(image.width, Math.ceil((x + 1) * sx))
        const y1 = Math.min(image.height, Math.ceil((y + 1) * sy))
        for (let v = Math.floor(y * sy); v < y1; v++)
          for (let u = Math.floor(x * sx); u < x1; u++, total++) add(u, v, 1)
      } else {
        const fx = Math.min(image.width - 1, Math.max(0, (x + 0.5) * sx - 0.5))
        const fy = Math.min(image.height - 1, Math.max(0, (y + 0.5) * sy - 0.5))
        const u = Math.floor(fx)
        const v = Math.floor(fy)
        const u1 = Math.min(image.width - 1, u + 1)
        const v1 = Math.min(image.height - 1, v + 1)
        const ax = fx - u
        const ay = fy - v
        add(u, v, (1 - ax) * (1 - ay))
        add(u1, v, ax * (1 - ay))
        add(u, v1, (1 - ax) * ay)
        add(u1, v1, ax * ay)
        total = 1
      }
      const alpha = sum[3]! / total
      if (alpha === 0) continue
      const covered = sum[3]! / 255
      out[d] = sum[0]! / covered + 0.5
      out[d + 1] = sum[1]! / covered + 0.5
      out[d + 2] = sum[2]! / covered + 0.5
      out[d + 3] = alpha + 0.5
    }
  }
  return { width, height, data: out }
}

// Decoding and resampling a logo costs more than drawing the code; the same logo is drawn at a
// few sizes again and again (the decode check's two, the image routes' usual widths).
const fitted = new Map<string, RgbaImage>()

/** The logo PNG decoded and fitted into a `box` px square, cached by its bytes and the box. */
export function logoPixels(png: Uint8Array, box: number): RgbaImage {
  const key = `${hash('sha1', png, 'base64')}:${box}`
  const cached = fitted.get(key)
  if (cached) {
    fitted.delete(key)
    fitted.set(key, cached)
    return cached
  }
  const image = fitImage(decodeLogo(png), box)
  fitted.set(key, image)
  if (fitted.size > 64) fitted.delete(fitted.keys().next().value as string)
  return image
}
