/**
 * Draws the pictures of docs/designs.md with the renderer itself: one small PNG per module
 * shape, finder shape, gradient, frame and logo. Run from the repository root:
 *
 *   npx tsx --conditions=source render/scripts/design-gallery.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import type { Style } from '@qrctl/contract'
import { encode } from 'fast-png'
import { renderPng } from '../src/index.js'

const OUT = new URL('../../docs/designs/', import.meta.url)
const PAYLOAD = 'https://qrctl.example/r/aZ3kP9q'
const SIZE = 200
const ASSET = '00000000-0000-4000-8000-000000000000'

/** A stand-in logo: a red disc with a white ring, drawn pixel by pixel. */
function logoPng(): Uint8Array {
  const side = 64
  const data = new Uint8Array(side * side * 4)
  for (let y = 0; y < side; y++)
    for (let x = 0; x < side; x++) {
      const r = Math.hypot(x - side / 2 + 0.5, y - side / 2 + 0.5)
      const i = (y * side + x) * 4
      const [red, green, blue, alpha] =
        r < 22 ? [0xc6, 0x28, 0x28, 255] : r < 30 ? [255, 255, 255, 255] : [0, 0, 0, 0]
      data.set([red, green, blue, alpha], i)
    }
  return encode({ width: side, height: side, data, channels: 4, depth: 8 })
}

const PICTURES: Record<string, Style> = {
  'module-square': { moduleShape: 'square' },
  'module-rounded': { moduleShape: 'rounded' },
  'module-dot': { moduleShape: 'dot' },
  'finder-square': { finderShape: 'square', finderDotShape: 'square', finderColor: '#B71C1C' },
  'finder-rounded': { finderShape: 'rounded', finderDotShape: 'rounded', finderColor: '#B71C1C' },
  'finder-circle': { finderShape: 'circle', finderDotShape: 'circle', finderColor: '#B71C1C' },
  'gradient-linear': {
    moduleShape: 'rounded',
    gradient: { type: 'linear', colors: ['#1A237E', '#6A1B9A'], rotation: 45 },
  },
  'gradient-radial': { moduleShape: 'dot', gradient: { type: 'radial', colors: ['#000000', '#0D47A1'] } },
  'frame-banner': { frame: { style: 'banner', text: 'Scan for the menu' } },
  'frame-box': { frame: { style: 'box', text: 'SCAN ME', position: 'top', color: '#1B5E20' } },
  logo: { moduleShape: 'rounded', finderShape: 'rounded', logo: { assetId: ASSET } },
}

mkdirSync(OUT, { recursive: true })
const logo = logoPng()
for (const [name, style] of Object.entries(PICTURES)) {
  writeFileSync(new URL(`${name}.png`, OUT), renderPng(PAYLOAD, style, { size: SIZE, logo }))
  process.stdout.write(`docs/designs/${name}.png\n`)
}
