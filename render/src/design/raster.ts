import { parseHexColor } from '@qrctl/contract'
import { logoPixels } from './logo-pixels.js'
import { Op } from './path.js'
import type { Paint, Scene } from './scene.js'

/**
 * Where the rasteriser writes: `channels` bytes a pixel (3 = RGB, 4 = RGBA with opaque alpha),
 * `stride` bytes a row, the first pixel of each row `offset` bytes in (a PNG scanline starts
 * with its filter byte).
 */
export interface PixelLayout {
  channels: 3 | 4
  stride: number
  offset: number
}

const shared = {
  cells: new Float32Array(0),
  left: new Int32Array(0),
  right: new Int32Array(0),
  blocks: new Uint8Array(0),
}

/**
 * Cells are grouped in blocks of 2^BLOCK_SHIFT along a row; a block no edge touched holds only
 * zeros, so the painter steps over it at once instead of cell by cell.
 */
const BLOCK_SHIFT = 4

/** Curves are cut into lines no more than this far (px) from the true curve. */
const FLATNESS = 0.2

/**
 * Anti-aliased coverage of filled outlines, by signed-area accumulation (the method of font-rs
 * and stb_truetype): each edge adds, to the cells it crosses, how much of them it covers; a
 * running sum along the row gives each pixel's coverage. Exact for straight edges, no
 * supersampling, and the scene's loops never overlap, so the nonzero and even-odd rules agree
 * with `min(1, |sum|)`.
 */
class Coverage {
  /** Per row `width + 2` cells: an edge at x = width still has a cell to its right. */
  readonly cells: Float32Array
  readonly stride: number
  /** The touched cells of each row lie in `left[y]…right[y]`; outside them coverage is 0. */
  readonly left: Int32Array
  readonly right: Int32Array
  /** Per row `blocksPerRow` flags, 1 where an edge touched a cell of that block. */
  readonly blocks: Uint8Array
  readonly blocksPerRow: number
  minY: number
  maxY = -1

  private constructor(
    readonly width: number,
    readonly height: number,
    cells: Float32Array,
    left: Int32Array,
    right: Int32Array,
    blocks: Uint8Array,
  ) {
    this.stride = width + 2
    this.blocksPerRow = (this.stride >> BLOCK_SHIFT) + 1
    this.cells = cells
    this.blocks = blocks
    this.left = left.fill(this.stride, 0, height)
    this.right = right.fill(-1, 0, height)
    // Whole numbers only, so the loops over rows stay on small integers.
    this.minY = height
  }

  /**
   * Coverage for a `width`×`height` image on buffers shared by every render of this thread,
   * grown when too small: they are all zero between renders (`reset` clears what a layer drew).
   */
  static of(width: number, height: number): Coverage {
    const needed = (width + 2) * height
    if (shared.cells.length < needed) shared.cells = new Float32Array(needed)
    if (shared.left.length < height) {
      shared.left = new Int32Array(height)
      shared.right = new Int32Array(height)
    }
    const blocks = (((width + 2) >> BLOCK_SHIFT) + 1) * height
    if (shared.blocks.length < blocks) shared.blocks = new Uint8Array(blocks)
    return new Coverage(width, height, shared.cells, shared.left, shared.right, shared.blocks)
  }

  reset(): void {
    for (let y = this.minY; y <= this.maxY; y++) {
      if (this.right[y]! >= 0) {
        this.cells.fill(0, y * this.stride + this.left[y]!, y * this.stride + this.right[y]! + 1)
        this.blocks.fill(0, y * this.blocksPerRow, (y + 1) * this.blocksPerRow)
      }
      this.left[y] = this.stride
      this.right[y] = -1
    }
    this.minY = this.height
    this.maxY = -1
  }

  line(ax: number, ay: number, bx: number, by: number): void {
    if (ay === by) return
    // Walk downwards; `dir` keeps the edge's winding.
    const dir = ay < by ? 1 : -1
    const x0 = dir > 0 ? ax : bx
    const y0 = dir > 0 ? ay : by
    const y1 = dir > 0 ? by : ay
    const dxdy = (bx - ax) / (by - ay)
    const w = this.width
    const top = Math.max(0, y0)
    const bottom = Math.min(this.height, y1)
    if (top >= bottom) return
    let x = x0 + (top - y0) * dxdy
    const first = Math.floor(top)
    const last = Math.ceil(bottom)
    if (first < this.minY) this.minY = first
    if (last - 1 > this.maxY) this.maxY = last - 1
    const a = this.cells
    const blocks = this.blocks
    for (let y = first; y < last; y++) {
      const row = y * this.stride
      const dy = Math.min(y + 1, bottom) - Math.max(y, top)
      const xNext = x + dxdy * dy
      const d = dy * dir
      let l = x < xNext ? x : xNext
      let r = x < xNext ? xNext : x
      if (l < 0) l = 0
      else if (l > w) l = w
      if (r < 0) r = 0
      else if (r > w) r = w
      const lFloor = Math.floor(l)
      const rCeil = Math.ceil(r)
      if (lFloor < this.left[y]!) this.left[y] = lFloor
      if (rCeil + 1 > this.right[y]!) this.right[y] = rCeil + 1
      // Cells lFloor…max(rCeil, lFloor + 1) change below.
      const blockRow = y * this.blocksPerRow
      for (let b = lFloor >> BLOCK_SHIFT; b <= (rCeil + 1) >> BLOCK_SHIFT; b++) blocks[blockRow + b] = 1
      if (rCeil <= lFloor + 1) {
        // Within one cell: its part left of the edge's mid-x is covered here, the rest spills right.
        const mid = 0.5 * (l + r) - lFloor
        a[row + lFloor]! += d - d * mid
        a[row + lFloor + 1]! += d * mid
      } else {
        const s = 1 / (r - l)
        const lf = l - lFloor
        const a0 = 0.5 * s * (1 - lf) * (1 - lf)
        const rf = r - rCeil + 1
        const am = 0.5 * s * rf * rf
        a[row + lFloor]! += d * a0
        if (rCeil === lFloor + 2) {
          a[row + lFloor + 1]! += d * (1 - a0 - am)
        } else {
          const a1 = s * (1.5 - lf)
          a[row + lFloor + 1]! += d * (a1 - a0)
          for (let xi = lFloor + 2; xi < rCeil - 1; xi++) a[row + xi]! += d * s
          const a2 = a1 + (rCeil - lFloor - 3) * s
          a[row + rCeil - 1]! += d * (1 - a2 - am)
        }
        a[row + rCeil]! += d * am
      }
      x = xNext
    }
  }
}

/** Feeds the outline of a path (`PathBuilder.ops`, in module units) to `coverage`, scaled to px. */
function fillPath(coverage: Coverage, ops: readonly number[], scale: number): void {
  let startX = 0
  let startY = 0
  let x = 0
  let y = 0
  for (let i = 0; i < ops.length; ) {
    const op = ops[i++]
    if (op === Op.M) {
      if (x !== startX || y !== startY) coverage.line(x, y, startX, startY)
      startX = x = ops[i++]! * scale
      startY = y = ops[i++]! * scale
    } else if (op === Op.L) {
      const nx = ops[i++]! * scale
      const ny = ops[i++]! * scale
      coverage.line(x, y, nx, ny)
      x = nx
      y = ny
    } else if (op === Op.Q) {
      const cx = ops[i++]! * scale
      const cy = ops[i++]! * scale
      const nx = ops[i++]! * scale
      const ny = ops[i++]! * scale
      const steps = curveSteps(Math.hypot(x - 2 * cx + nx, y - 2 * cy + ny) / 4)
      let px = x
      let py = y
      for (let k = 1; k <= steps; k++) {
        const t = k / steps
        const u = 1 - t
        const qx = u * u * x + 2 * u * t * cx + t * t * nx
        const qy = u * u * y + 2 * u * t * cy + t * t * ny
        coverage.line(px, py, qx, qy)
        px = qx
        py = qy
      }
      x = nx
      y = ny
    } else if (op === Op.C) {
      const c1x = ops[i++]! * scale
      const c1y = ops[i++]! * scale
      const c2x = ops[i++]! * scale
      const c2y = ops[i++]! * scale
      const nx = ops[i++]! * scale
      const ny = ops[i++]! * scale
      const bend = Math.max(
        Math.hypot(x - 2 * c1x + c2x, y - 2 * c1y + c2y),
        Math.hypot(c1x - 2 * c2x + nx, c1y - 2 * c2y + ny),
      )
      const steps = curveSteps((3 * bend) / 4)
      let px = x
      let py = y
      for (let k = 1; k <= steps; k++) {
        const t = k / steps
        const u = 1 - t
        const b0 = u * u * u
        const b1 = 3 * u * u * t
        const b2 = 3 * u * t * t
        const b3 = t * t * t
        const cx = b0 * x + b1 * c1x + b2 * c2x + b3 * nx
        const cy = b0 * y + b1 * c1y + b2 * c2y + b3 * ny
        coverage.line(px, py, cx, cy)
        px = cx
        py = cy
      }
      x = nx
      y = ny
    } else {
      coverage.line(x, y, startX, startY)
      x = startX
      y = startY
    }
  }
  if (x !== startX || y !== startY) coverage.line(x, y, startX, startY)
}

/** Line segments for a curve whose control polygon bends by `deviation` px: error ≤ FLATNESS. */
function curveSteps(deviation: number): number {
  return Math.max(1, Math.min(64, Math.ceil(Math.sqrt(deviation / FLATNESS))))
}

/**
 * A paint ready for the pixel loop: colour `from` + (`to` − `from`) × t, where t (clamped to
 * 0–1) is 0 for a solid colour, the position along a linear gradient's axis, or the distance
 * from a radial gradient's centre over its radius: gradients in sRGB, as SVG interpolates them.
 */
interface Shader {
  kind: Paint['kind']
  from: [number, number, number]
  to: [number, number, number]
  /** linear: t = (x − x0) kx + (y − y0) ky; radial: t = |(x, y) − (x0, y0)| kx. */
  x0: number
  y0: number
  kx: number
  ky: number
}

function shader(paint: Paint, scale: number): Shader {
  if (paint.kind === 'color') {
    const color = parseHexColor(paint.color)
    return { kind: 'color', from: color, to: color, x0: 0, y0: 0, kx: 0, ky: 0 }
  }
  const from = parseHexColor(paint.colors[0])
  const to = parseHexColor(paint.colors[1])
  if (paint.kind === 'radial')
    return {
      kind: 'radial',
      from,
      to,
      x0: paint.cx * scale,
      y0: paint.cy * scale,
      kx: 1 / (paint.r * scale),
      ky: 0,
    }
  const dx = paint.x2 - paint.x1
  const dy = paint.y2 - paint.y1
  const length2 = (dx * dx + dy * dy) * scale || 1
  return {
    kind: 'linear',
    from,
    to,
    x0: paint.x1 * scale,
    y0: paint.y1 * scale,
    kx: dx / length2,
    ky: dy / length2,
  }
}

/**
 * The scene drawn `width` px wide into `out` (laid out as `layout` says; the height follows
 * from the scene's proportions): background, each layer in its paint, then the logo. Pixel
 * centres are sampled for gradients; edges are anti-aliased by exact area coverage.
 */
export function rasterizeScene(
  scene: Scene,
  width: number,
  height: number,
  out: Uint8Array,
  layout: PixelLayout,
) {
  const scale = width / scene.width
  const { channels, stride, offset } = layout
  const [br, bg, bb] = parseHexColor(scene.background)
  for (let x = 0, p = offset; x < width; x++, p += channels) {
    out[p] = br
    out[p + 1] = bg
    out[p + 2] = bb
    if (channels === 4) out[p + 3] = 255
  }
  for (let y = 1; y < height; y++) out.copyWithin(y * stride, 0, stride)
  const coverage = Coverage.of(width, height)
  try {
    for (const layer of scene.layers) {
      if (layer.path.isEmpty) continue
      fillPath(coverage, layer.path.ops, scale)
      paintCoverage(coverage, shader(layer.paint, scale), out, layout)
      coverage.reset()
    }
  } finally {
    coverage.reset()
  }
  if (scene.logo) drawLogo(scene.logo, scale, width, height, out, layout)
}

/**
 * Blends `paint` into `out` wherever `coverage` covers a pixel, by how much it covers it. Cells
 * hold changes of coverage, so a run of zero cells keeps the coverage of the pixel before it:
 * an uncovered run is skipped and a fully covered one painted without blending (most pixels are
 * one or the other; only edges are partly covered).
 */
function paintCoverage(coverage: Coverage, paint: Shader, out: Uint8Array, layout: PixelLayout): void {
  const { channels, stride, offset } = layout
  const { cells, left, right, blocks } = coverage
  const { x0, y0, kx, ky } = paint
  const linear = paint.kind === 'linear'
  const radial = paint.kind === 'radial'
  const solid = !linear && !radial
  const [r0, g0, b0] = paint.from
  const dr = paint.to[0] - r0
  const dg = paint.to[1] - g0
  const db = paint.to[2] - b0
  // A solid colour's bytes, as the blend below writes them for a fully covered pixel.
  const sr = (r0 + 0.5) & 255
  const sg = (g0 + 0.5) & 255
  const sb = (b0 + 0.5) & 255
  const last = coverage.width - 1
  for (let y = coverage.minY; y <= coverage.maxY; y++) {
    const end = Math.min(last, right[y]!)
    const row = y * coverage.stride
    const py = y + 0.5 - y0
    // Along a row a linear gradient's t grows by kx a pixel.
    const rowT = py * ky + (0.5 - x0) * kx
    const rowStart = y * stride + offset
    const blockRow = y * coverage.blocksPerRow
    let sum = 0
    let x = left[y]!
    while (x <= end) {
      sum += cells[row + x]!
      const alpha = sum < 0 ? -sum : sum
      if (alpha < 0.002) {
        x = nextChange(cells, row, blocks, blockRow, x + 1, end)
        continue
      }
      // This pixel and the run of zero cells after it share one coverage.
      const runEnd = nextChange(cells, row, blocks, blockRow, x + 1, end)
      let p = rowStart + x * channels
      if (alpha >= 0.998) {
        // Fully covered: the paint's own colour, as the blend below would write it.
        if (solid) {
          for (; x < runEnd; x++, p += channels) {
            out[p] = sr
            out[p + 1] = sg
            out[p + 2] = sb
          }
        } else if (linear) {
          for (; x < runEnd; x++, p += channels) {
            let t = rowT + x * kx
            if (t < 0) t = 0
            else if (t > 1) t = 1
            out[p] = r0 + dr * t + 0.5
            out[p + 1] = g0 + dg * t + 0.5
            out[p + 2] = b0 + db * t + 0.5
          }
        } else {
          for (; x < runEnd; x++, p += channels) {
            let t = Math.sqrt((x + 0.5 - x0) ** 2 + py * py) * kx
            if (t < 0) t = 0
            else if (t > 1) t = 1
            out[p] = r0 + dr * t + 0.5
            out[p + 1] = g0 + dg * t + 0.5
            out[p + 2] = b0 + db * t + 0.5
          }
        }
        continue
      }
      for (; x < runEnd; x++, p += channels) {
        let r = r0
        let g = g0
        let b = b0
        if (!solid) {
          let t = linear ? rowT + x * kx : Math.sqrt((x + 0.5 - x0) ** 2 + py * py) * kx
          if (t < 0) t = 0
          else if (t > 1) t = 1
          r += dr * t
          g += dg * t
          b += db * t
        }
        r = out[p]! + (r - out[p]!) * alpha
        g = out[p + 1]! + (g - out[p + 1]!) * alpha
        b = out[p + 2]! + (b - out[p + 2]!) * alpha
        out[p] = r + 0.5
        out[p + 1] = g + 0.5
        out[p + 2] = b + 0.5
      }
    }
  }
}

/**
 * The first cell from `x` on (at most `end`) that changes the coverage, or `end + 1`: untouched
 * blocks are stepped over whole (a 1024 px render walks ~2.4 M cells, most of them zero).
 */
function nextChange(
  cells: Float32Array,
  row: number,
  blocks: Uint8Array,
  blockRow: number,
  x: number,
  end: number,
): number {
  while (x <= end) {
    if (blocks[blockRow + (x >> BLOCK_SHIFT)] === 0) {
      x = ((x >> BLOCK_SHIFT) + 1) << BLOCK_SHIFT
      continue
    }
    const blockEnd = Math.min(end, x | ((1 << BLOCK_SHIFT) - 1))
    for (; x <= blockEnd; x++) if (cells[row + x] !== 0) return x
  }
  return end + 1
}

/** The logo, fitted into its box (aspect kept, centred) and blended by its alpha. */
function drawLogo(
  logo: NonNullable<Scene['logo']>,
  scale: number,
  width: number,
  height: number,
  out: Uint8Array,
  { channels, stride, offset }: PixelLayout,
): void {
  const box = Math.max(1, Math.round(logo.size * scale))
  const image = logoPixels(logo.png, box)
  const left = Math.round(logo.x * scale) + ((box - image.width) >> 1)
  const top = Math.round(logo.y * scale) + ((box - image.height) >> 1)
  const { data } = image
  for (let y = Math.max(0, top); y < Math.min(height, top + image.height); y++) {
    let s = ((y - top) * image.width + Math.max(0, left) - left) * 4
    let p = y * stride + offset + Math.max(0, left) * channels
    for (let x = Math.max(0, left); x < Math.min(width, left + image.width); x++, s += 4, p += channels) {
      const alpha = data[s + 3]! / 255
      if (alpha === 0) continue
      if (alpha === 1) {
        // Opaque (most logos, mostly): the blend below would give the logo's bytes.
        out[p] = data[s]!
        out[p + 1] = data[s + 1]!
        out[p + 2] = data[s + 2]!
        continue
      }
      out[p] = out[p]! + (data[s]! - out[p]!) * alpha + 0.5
      out[p + 1] = out[p + 1]! + (data[s + 1]! - out[p + 1]!) * alpha + 0.5
      out[p + 2] = out[p + 2]! + (data[s + 2]! - out[p + 2]!) * alpha + 0.5
    }
  }
}
