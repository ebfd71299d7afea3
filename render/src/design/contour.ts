import { KAPPA, type PathBuilder } from './path.js'

// Directions on screen (y grows downwards): right, down, left, up.
const DX = [1, 0, -1, 0] as const
const DY = [0, 1, 0, -1] as const

export interface ContourOptions {
  /** Grid side in modules. */
  size: number
  /** Whether the module at (row, col) belongs to the region; never called outside the grid. */
  inside(row: number, col: number): boolean
  /** Radius (0–0.5 module) of a convex corner owned by the module at (row, col); 0 keeps it sharp. */
  cornerRadius(row: number, col: number): number
}

/**
 * The outline of a region of modules, appended to `path` as closed loops: one loop per connected
 * piece and per hole, every edge shared by two modules of the region left out. Drawing the region
 * as one outline rather than a square per module is what keeps hairline seams out of SVG and PDF
 * at any zoom: there is no edge between neighbours for an anti-aliasing renderer to show.
 * Loops run clockwise on screen around the region (holes the other way), with the region on the
 * right of every edge, so a right turn is a convex corner; convex corners may be rounded.
 * Two modules touching only at a corner stay two loops.
 */
export function traceContour(path: PathBuilder, options: ContourOptions): void {
  const { size, inside } = options
  const side = size + 1
  const at = (row: number, col: number) =>
    row >= 0 && col >= 0 && row < size && col < size && inside(row, col)
  // edges[(y * side + x) * 4 + dir] = 1: an outline edge leaves vertex (x, y) in direction dir.
  const edges = new Uint8Array(side * side * 4)
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      if (!inside(row, col)) continue
      if (!at(row - 1, col)) edges[(row * side + col) * 4 + 0] = 1
      if (!at(row, col + 1)) edges[(row * side + col + 1) * 4 + 1] = 1
      if (!at(row + 1, col)) edges[((row + 1) * side + col + 1) * 4 + 2] = 1
      if (!at(row, col - 1)) edges[((row + 1) * side + col) * 4 + 3] = 1
    }
  }
  for (let start = 0; start < edges.length; start++) {
    if (edges[start] === 1) traceLoop(path, options, edges, side, start)
  }
}

interface Corner {
  x: number
  y: number
  dirIn: number
  dirOut: number
}

function traceLoop(
  path: PathBuilder,
  options: ContourOptions,
  edges: Uint8Array,
  side: number,
  start: number,
): void {
  const corners: Corner[] = []
  let vertex = start >> 2
  let dir = start & 3
  let edge = start
  do {
    edges[edge] = 0
    const x = (vertex % side) + DX[dir]!
    const y = Math.floor(vertex / side) + DY[dir]!
    vertex = y * side + x
    // At a vertex two diagonal modules share, turning right keeps to the module just walked
    // along, so the two stay separate loops; otherwise there is exactly one way on.
    let next = -1
    for (const turn of [1, 0, 3]) {
      const candidate = (dir + turn) & 3
      if (edges[vertex * 4 + candidate] === 1 || vertex * 4 + candidate === start) {
        next = candidate
        break
      }
    }
    if (next < 0) break
    if (next !== dir) corners.push({ x, y, dirIn: dir, dirOut: next })
    dir = next
    edge = vertex * 4 + dir
  } while (edge !== start)
  drawLoop(path, options, corners)
}

function drawLoop(path: PathBuilder, options: ContourOptions, corners: Corner[]): void {
  if (corners.length === 0) return
  const radii = corners.map((c) => {
    if (((c.dirIn + 1) & 3) !== c.dirOut) return 0
    // The module owning a convex corner sits half a module back along the edge coming in and
    // half a module on along the edge going out.
    const col = Math.floor(c.x - DX[c.dirIn]! * 0.5 + DX[c.dirOut]! * 0.5)
    const row = Math.floor(c.y - DY[c.dirIn]! * 0.5 + DY[c.dirOut]! * 0.5)
    return Math.min(0.5, Math.max(0, options.cornerRadius(row, col)))
  })
  const first = corners[0]!
  const r0 = radii[0]!
  path.moveTo(first.x + DX[first.dirOut]! * r0, first.y + DY[first.dirOut]! * r0)
  for (let i = 1; i <= corners.length; i++) {
    const c = corners[i % corners.length]!
    const r = radii[i % corners.length]!
    const ax = DX[c.dirIn]!
    const ay = DY[c.dirIn]!
    const bx = DX[c.dirOut]!
    const by = DY[c.dirOut]!
    path.lineTo(c.x - ax * r, c.y - ay * r)
    if (r > 0) {
      const k = r * (1 - KAPPA)
      path.curveTo(c.x - ax * k, c.y - ay * k, c.x + bx * k, c.y + by * k, c.x + bx * r, c.y + by * r)
    }
  }
  path.close()
}
