import { deflateSync } from 'node:zlib'
import { crc32 } from './crc32.js'

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length)
  out.writeUInt32BE(data.length, 0)
  out.write(type, 4, 'latin1')
  data.copy(out, 8)
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length)
  return out
}

/**
 * An opaque RGBA bitmap as an 8-bit RGB PNG. Styled codes sit on an opaque background, so the
 * alpha channel carries nothing. No row filter and zlib level 3 (Node's native zlib): measured
 * here, about twice as fast as resvg's own encoder, for files a third larger than level 9.
 */
export function encodeRgbPng(width: number, height: number, rgba: Uint8Array): Uint8Array {
  const stride = width * 3 + 1
  const raw = new Uint8Array(stride * height)
  for (let y = 0; y < height; y++) {
    let s = y * width * 4
    let d = y * stride + 1 // the row's filter byte stays 0: None
    for (let x = 0; x < width; x++, s += 4, d += 3) {
      raw[d] = rgba[s]!
      raw[d + 1] = rgba[s + 1]!
      raw[d + 2] = rgba[s + 2]!
    }
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8 // bit depth
  header[9] = 2 // truecolour
  const png = Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 3 })),
    chunk('IEND', Buffer.alloc(0)),
  ])
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength)
}
