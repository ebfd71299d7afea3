/**
 * Path data in module units, written once and read by every format: the SVG `d` attribute,
 * pdfkit's `doc.path()` and (through the SVG) the PNG. Only M, L, C and Z, absolute, so every
 * consumer reads them alike.
 */
export class PathBuilder {
  private readonly parts: string[] = []

  constructor(
    /** Offset added to every point: the quiet zone (and frame border) before the symbol. */
    private readonly dx = 0,
    private readonly dy = 0,
  ) {}

  moveTo(x: number, y: number): this {
    this.parts.push(`M${num(x + this.dx)} ${num(y + this.dy)}`)
    return this
  }

  lineTo(x: number, y: number): this {
    this.parts.push(`L${num(x + this.dx)} ${num(y + this.dy)}`)
    return this
  }

  curveTo(x1: number, y1: number, x2: number, y2: number, x: number, y: number): this {
    const { dx, dy } = this
    this.parts.push(
      `C${num(x1 + dx)} ${num(y1 + dy)} ${num(x2 + dx)} ${num(y2 + dy)} ${num(x + dx)} ${num(y + dy)}`,
    )
    return this
  }

  close(): this {
    this.parts.push('Z')
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

  /** Appends path data already in final coordinates (glyph outlines). */
  raw(d: string): this {
    if (d) this.parts.push(d)
    return this
  }

  get isEmpty(): boolean {
    return this.parts.length === 0
  }

  toString(): string {
    return this.parts.join('')
  }
}

/** Control-point distance of a quarter circle drawn as one cubic Bézier. */
export const KAPPA = 0.5522847498

/** Up to 3 decimals, no trailing zeros, no `-0`: short and the same on every run. */
export function num(value: number): string {
  const rounded = Math.round(value * 1000) / 1000
  return Object.is(rounded, -0) ? '0' : String(rounded)
}
