import jsQR from 'jsqr'
import { PNG } from 'pngjs'

/** What a PNG QR code decodes to, through a real decoder. */
export function decodePng(bytes: Buffer): string | undefined {
  const image = PNG.sync.read(bytes)
  return jsQR.default(new Uint8ClampedArray(image.data), image.width, image.height)?.data
}

/**
 * Rasterises `renderTerminal` text (each character two modules tall: ▀ top, ▄ bottom, █ both,
 * space neither) into RGBA, `scale` pixels per module, and decodes it. `inkIsDark` false reads
 * an inverted rendering (ink drawn for light modules).
 */
export function decodeTerminal(
  text: string,
  options: { inkIsDark?: boolean; scale?: number } = {},
): string | undefined {
  const scale = options.scale ?? 6
  const inkIsDark = options.inkIsDark ?? true
  const rows = text.split('\n').filter((line) => line.length > 0)
  const width = Math.max(...rows.map((r) => [...r].length))
  const height = rows.length * 2
  const modules: boolean[][] = []
  for (const row of rows) {
    const chars = [...row.padEnd(width)]
    modules.push(chars.map((c) => c === '▀' || c === '█'))
    modules.push(chars.map((c) => c === '▄' || c === '█'))
  }
  // A light border, in case the text lost its quiet zone.
  const pad = 4
  const w = (width + 2 * pad) * scale
  const h = (height + 2 * pad) * scale
  const data = new Uint8ClampedArray(w * h * 4).fill(255)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const dark = modules[y]?.[x] === inkIsDark
      if (!dark) continue
      for (let dy = 0; dy < scale; dy++) {
        for (let dx = 0; dx < scale; dx++) {
          const i = (((y + pad) * scale + dy) * w + (x + pad) * scale + dx) * 4
          data[i] = 0
          data[i + 1] = 0
          data[i + 2] = 0
        }
      }
    }
  }
  return jsQR.default(data, w, h)?.data
}
