/** Path commands as stored in `PathBuilder.ops`, each followed by its coordinates. */
export const Op = { M: 0, L: 1, C: 2, Q: 3, Z: 4 } as const
const LETTERS = ['M', 'L', 'C', 'Q', 'Z'] as const
/** How many coordinates follow each command. */
const ARITY = [2, 2, 6, 4, 0] as const

/**
 * A path in module units, built once and read by every format: as SVG path data (`toString()`:
 * the SVG `d` attribute, pdfkit's `doc.path()`) and as numbers (`ops`: the PNG rasteriser, which
 * so never formats or parses a number). Only M, L, C, Q and Z, absolute, so every consumer reads
 * them alike.
 */
export class PathBuilder {
  private readonly numbers: number[] = []
  private svg: string | undefined

  constructor(
    /** Offset added to every point: the quiet zone (and frame border) before the symbol. */
    private readonly dx = 0,
    private readonly dy = 0,
  ) {}

  /** A path given as SVG path data (glyph outlines): kept as written, read into numbers once. */
  static fromSvg(d: string): PathBuilder {
    const path = new PathBuilder()
    path.svg = d
    readSvgPath(d, path.numbers)
    return path
  }

  moveTo(x: number, y: number): this {
    return this.push(Op.M, x, y)
  }

  lineTo(x: number, y: number): this {
    return this.push(Op.L, x, y)
  }

  curveTo(x1: number, y1: number, x2: number, y2: number, x: number, y: number): this {
    this.svg = undefined
    const { dx, dy } = this
    this.numbers.push(Op.C, x1 + dx, y1 + dy, x2 + dx, y2 + dy, x + dx, y + dy)
    return this
  }

  close(): this {
    this.svg = undefined
    this.numbers.push(Op.Z)
    return this
  }

  private push(op: number, x: number, y: number): this {
    this.svg = undefined
    this.numbers.push(op, x + this.dx, y + this.dy)
    return this
  }

  /** A circle as four cubic Béziers, clockwise (on screen) from its leftmost point. */
  circle(cx: number, cy: number, r: number, clockwise = true): this {
    const k = r * KAPPA
    const s = clockwise ? 1 : -1
    this.moveTo(cx - r, cy)
    this.curveTo(cx - r, cy - s * k, cx - k, cy - s * r, cx, cy - s * r)
    this.curveTo(cx + k, cy - s * r, cx + r, cy - s * k, cx + r, cy)
    this.curveTo(cx + r, cy + s * k, cx + k, cy + s * r, cx, cy + s * r)
    this.curveTo(cx - k, cy + s * r, cx - r, cy + s * k, cx - r, cy)
    return this.close()
  }

  /** A rectangle with corners of radius `r` (0 for sharp), clockwise on screen. */
  roundedRect(x: number, y: number, w: number, h: number, r: number): this {
    if (r <= 0)
      return this.moveTo(x, y)
        .lineTo(x + w, y)
        .lineTo(x + w, y + h)
        .lineTo(x, y + h)
        .close()
    const k = r * (1 - KAPPA)
    this.moveTo(x + r, y)
    this.lineTo(x + w - r, y).curveTo(x + w - k, y, x + w, y + k, x + w, y + r)
    this.lineTo(x + w, y + h - r).curveTo(x + w, y + h - k, x + w - k, y + h, x + w - r, y + h)
    this.lineTo(x + r, y + h).curveTo(x + k, y + h, x, y + h - k, x, y + h - r)
    this.lineTo(x, y + r).curveTo(x, y + k, x + k, y, x + r, y)
    return this.close()
  }

  get isEmpty(): boolean {
    return this.numbers.length === 0
  }

  /** The commands and their coordinates, offsets applied: `[Op.M, x, y, Op.C, x1, …, Op.Z, …]`. */
  get ops(): readonly number[] {
    return this.numbers
  }

  /** SVG path data: up to 3 decimals a number (made once, on first use). */
  toString(): string {
    if (this.svg !== undefined) return this.svg
    const ops = this.numbers
    let d = ''
    for (let i = 0; i < ops.length; ) {
      const op = ops[i++]!
      d += LETTERS[op]
      for (let k = 0; k < ARITY[op]!; k++) d += (k > 0 ? ' ' : '') + num(ops[i++]!)
    }
    this.svg = d
    return d
  }
}

/** Appends the commands of SVG path data (absolute M, L, C, Q and Z only) to `out`. */
function readSvgPath(d: string, out: number[]): void {
  let i = 0
  const skip = () => {
    while (d.charCodeAt(i) === 32 || d.charCodeAt(i) === 44) i++
  }
  while (i < d.length) {
    skip()
    if (i >= d.length) break
    const letter = d[i++]!
    const op = LETTERS.indexOf(letter as (typeof LETTERS)[number])
    if (op < 0) throw new Error(`Path command ${letter} not supported`)
    out.push(op)
    for (let k = 0; k < ARITY[op]!; k++) {
      skip()
      const start = i
      let c = d.charCodeAt(i)
      if (c === 45 || c === 43) c = d.charCodeAt(++i)
      while ((c >= 48 && c <= 57) || c === 46) c = d.charCodeAt(++i)
      if (c === 101 || c === 69) {
        c = d.charCodeAt(++i)
        if (c === 45 || c === 43) c = d.charCodeAt(++i)
        while (c >= 48 && c <= 57) c = d.charCodeAt(++i)
      }
      const value = Number(d.slice(start, i))
      if (i === start || Number.isNaN(value)) throw new Error(`Path data not understood at ${start}`)
      out.push(value)
    }
  }
}

/** Control-point distance of a quarter circle drawn as one cubic Bézier. */
export const KAPPA = 0.5522847498

/** Up to 3 decimals, no trailing zeros, no `-0`: short and the same on every run. */
export function num(value: number): string {
  const rounded = Math.round(value * 1000) / 1000
  return Object.is(rounded, -0) ? '0' : String(rounded)
}
