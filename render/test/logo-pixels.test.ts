import { deflateSync } from 'node:zlib'
import { encode } from 'fast-png'
import { describe, expect, it } from 'vitest'
import { decodeLogo, fitImage } from '../src/design/logo-pixels.js'
import { chunk, SIGNATURE } from '../src/design/png-encode.js'

/** A logo is drawn from any PNG the CLI is given offline, not only the server's re-encoded ones. */

const RED = [200, 40, 40, 255]
const CLEAR = [0, 0, 0, 0]

/** 2×1 px: a red pixel and a transparent one, in the colour type and depth given. */
function png(channels: number, depth: 8 | 16, palette = false): Uint8Array {
  if (palette) return indexedPng()
  const scale = depth === 16 ? 257 : 1
  const pixel = (rgba: number[]) =>
    channels === 4
      ? rgba
      : channels === 3
        ? rgba.slice(0, 3)
        : channels === 2
          ? [rgba[0]!, rgba[3]!]
          : [rgba[0]!]
  const samples = [...pixel(RED), ...pixel(CLEAR)].map((v) => v * scale)
  return encode({
    width: 2,
    height: 1,
    depth,
    channels,
    data: depth === 16 ? new Uint16Array(samples) : new Uint8Array(samples),
  })
}

/**
 * The indexed PNG written chunk by chunk: fast-png 8.0.0's encoder writes a palette's alpha
 * (tRNS) in the wrong order, which pngjs and fast-png's own decoder then read back swapped.
 */
function indexedPng(): Uint8Array {
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', Buffer.from([0, 0, 0, 2, 0, 0, 0, 1, 8, 3, 0, 0, 0])),
    chunk('PLTE', Buffer.from([...RED.slice(0, 3), ...CLEAR.slice(0, 3)])),
    chunk('tRNS', Buffer.from([RED[3]!, CLEAR[3]!])),
    chunk('IDAT', deflateSync(Buffer.from([0, 0, 1]))),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

describe('logo pixels', () => {
  it.each([
    ['RGBA 8-bit', png(4, 8), [...RED, ...CLEAR]],
    ['RGBA 16-bit', png(4, 16), [...RED, ...CLEAR]],
    ['RGB 8-bit', png(3, 8), [...RED, 0, 0, 0, 255]],
    ['grey + alpha 8-bit', png(2, 8), [200, 200, 200, 255, 0, 0, 0, 0]],
    ['grey 16-bit', png(1, 16), [200, 200, 200, 255, 0, 0, 0, 255]],
    ['indexed with transparency', png(1, 8, true), [...RED, ...CLEAR]],
  ])('decodes a %s PNG to RGBA', (_name, bytes, rgba) => {
    const image = decodeLogo(bytes)
    expect([image.width, image.height]).toEqual([2, 1])
    expect([...image.data]).toEqual(rgba)
  })

  it('fits an image into its box keeping its aspect, transparent pixels lending no colour', () => {
    const wide = { width: 4, height: 2, data: new Uint8Array(4 * 2 * 4) }
    for (let i = 0; i < 8; i++) wide.data.set(i % 2 ? CLEAR : RED, i * 4)
    const fitted = fitImage(wide, 2)
    expect([fitted.width, fitted.height]).toEqual([2, 1])
    // Each output pixel averages one red and one transparent pixel: half as opaque, still red.
    expect([...fitted.data.subarray(0, 4)]).toEqual([200, 40, 40, 128])
  })
})
