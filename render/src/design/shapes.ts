import type { FinderShape, ModuleShape } from '@qrctl/contract'
import type { QrSymbol } from '../symbol.js'
import { traceContour } from './contour.js'
import { finderOrigins, Role } from './modules.js'
import type { PathBuilder } from './path.js'

/** Radius of a dot, in modules: a little gap between neighbours reads as dots, not a blob. */
const DOT_RADIUS = 0.45

/**
 * The dark modules other than the finders, appended to `path`. `square` and `rounded` draw the
 * region as one outline (rounded: the convex corners of data modules become quarter circles, so
 * a lone module is a dot and a run a capsule); `dot` draws each data module as a circle. Timing
 * and alignment patterns are square outlines in every shape. `cleared` modules (under a logo)
 * are left out.
 */
export function drawModules(
  path: PathBuilder,
  symbol: QrSymbol,
  roles: Uint8Array,
  shape: ModuleShape,
  cleared: Uint8Array | undefined,
): void {
  const { size, modules } = symbol
  const isDark = (i: number) => modules[i] !== 0 && roles[i] !== Role.Finder && !cleared?.[i]
  if (shape === 'dot') {
    for (let i = 0; i < modules.length; i++) {
      if (!isDark(i) || roles[i] !== Role.Data) continue
      path.circle((i % size) + 0.5, Math.floor(i / size) + 0.5, DOT_RADIUS)
    }
  }
  const radius = shape === 'rounded' ? 0.5 : 0
  traceContour(path, {
    size,
    inside: (row, col) => {
      const i = row * size + col
      return isDark(i) && (shape !== 'dot' || roles[i] === Role.Fixed)
    },
    cornerRadius: (row, col) => (roles[row * size + col] === Role.Data ? radius : 0),
  })
}

/** The outer 7×7 rings of the three finder patterns, each with its 5×5 hole. */
export function drawFinderRings(path: PathBuilder, size: number, shape: FinderShape): void {
  for (const [row, col] of finderOrigins(size)) {
    // `circle` keeps one flat module in the middle of each side: ZBar fits straight lines to a
    // finder's edges and misses perfect rings at some sizes, never these.
    const [outer, inner] = shape === 'rounded' ? [2, 1.2] : shape === 'circle' ? [3, 2] : [0, 0]
    path.roundedRect(col, row, 7, 7, outer)
    // The hole runs the other way round, so it stays a hole under the nonzero rule too.
    reversedRoundedRect(path, col + 1, row + 1, 5, 5, inner)
  }
}

/** The 3×3 centres of the three finder patterns. */
export function drawFinderDots(path: PathBuilder, size: number, shape: FinderShape): void {
  for (const [row, col] of finderOrigins(size)) {
    // `circle`, like the ring, keeps a short flat middle on each side for line-fitting scanners.
    const radius = shape === 'circle' ? 1.2 : shape === 'rounded' ? 0.9 : 0
    path.roundedRect(col + 2, row + 2, 3, 3, radius)
  }
}

function reversedRoundedRect(path: PathBuilder, x: number, y: number, w: number, h: number, r: number) {
  if (r <= 0) {
    path
      .moveTo(x, y)
      .lineTo(x, y + h)
      .lineTo(x + w, y + h)
      .lineTo(x + w, y)
      .close()
    return
  }
  const k = r * 0.4477152502
  path.moveTo(x + r, y)
  path.curveTo(x + k, y, x, y + k, x, y + r).lineTo(x, y + h - r)
  path.curveTo(x, y + h - k, x + k, y + h, x + r, y + h).lineTo(x + w - r, y + h)
  path.curveTo(x + w - k, y + h, x + w, y + h - k, x + w, y + h - r).lineTo(x + w, y + r)
  path.curveTo(x + w, y + k, x + w - k, y, x + w - r, y).close()
}
