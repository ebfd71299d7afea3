import { isDesigned } from '@qrctl/contract'
import { renderDesignSvg } from './design/render.js'
import { normalizeStyle, type StyleInput } from './style.js'
import { createSymbol, forEachDarkRun } from './symbol.js'

export interface SvgOptions {
  /** Adds `width` and `height` in pixels; without it the SVG takes the size of its container. */
  size?: number
  /** The PNG of `style.logo`'s asset (DESIGN §13). */
  logo?: Uint8Array | undefined
}

/**
 * The code as a compact SVG: a background `<rect>` and ONE filled `<path>` holding every
 * horizontal run of dark modules, in module units (`viewBox="0 0 n n"`, quiet zone included).
 * @example renderSvg('https://example.com', null) // '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 33 33" …'
 */
export function renderSvg(payload: string, style: StyleInput, options: SvgOptions = {}): string {
  if (options.size !== undefined && !(Number.isInteger(options.size) && options.size > 0))
    throw new RangeError(`size must be a positive whole number of pixels, got ${options.size}`)
  const s = normalizeStyle(style)
  if (isDesigned(s)) return renderDesignSvg(payload, s, options.size, options.logo)
  const symbol = createSymbol(payload, s.errorCorrectionLevel)
  const n = symbol.size + 2 * s.margin
  // Each run is a closed rectangle `h{len}v1h-{len}z`; after `z` the pen is back at the run's
  // start, so the next run is reached with a short relative `m`.
  const parts: string[] = []
  let penX = 0
  let penY = 0
  forEachDarkRun(symbol, (col, row, length) => {
    const x = col + s.margin
    const y = row + s.margin
    parts.push(parts.length === 0 ? `M${x} ${y}` : `m${x - penX} ${y - penY}`, `h${length}v1h-${length}z`)
    penX = x
    penY = y
  })
  const dimensions = options.size === undefined ? '' : ` width="${options.size}" height="${options.size}"`
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${n} ${n}"${dimensions} shape-rendering="crispEdges">` +
    `<rect width="${n}" height="${n}" fill="${s.backgroundColor}"/>` +
    `<path fill="${s.foregroundColor}" d="${parts.join('')}"/></svg>\n`
  )
}
