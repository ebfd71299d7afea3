import type { NormalizedStyle } from '../style.js'
import type { QrSymbol } from '../symbol.js'
import { textOutline } from './font.js'
import { moduleRoles } from './modules.js'
import { PathBuilder } from './path.js'
import { drawFinderDots, drawFinderRings, drawModules } from './shapes.js'

export type Paint =
  | { kind: 'color'; color: string }
  | { kind: 'linear'; colors: [string, string]; x1: number; y1: number; x2: number; y2: number }
  | { kind: 'radial'; colors: [string, string]; cx: number; cy: number; r: number }

/** One filled path, in one paint. Loops never overlap, so any fill rule gives the same picture. */
export interface Layer {
  path: PathBuilder
  paint: Paint
}

/** A raster drawn on top (the logo): PNG bytes placed at `x, y` in a `size`×`size` box. */
export interface Placement {
  png: Uint8Array
  x: number
  y: number
  size: number
}

/**
 * Everything a styled code is made of, in module units (`width` × `height`, quiet zone and frame
 * included): the background, then the layers in drawing order, then the logo. The SVG, PDF and
 * PNG renderers only translate it, so every format draws the same picture.
 */
export interface Scene {
  width: number
  height: number
  background: string
  layers: Layer[]
  logo?: Placement
}

/** Frame geometry, in modules: the band holding the text and the border of a `box`. */
export function frameMetrics(side: number, style: NormalizedStyle) {
  if (!style.frame) return { border: 0, band: 0 }
  return { border: style.frame.style === 'box' ? 1 : 0, band: Math.max(4, Math.round(side * 0.16)) }
}

export interface SceneInput {
  symbol: QrSymbol
  style: NormalizedStyle
  /** Modules a logo clears, `cleared[row * size + col] = 1`. */
  cleared?: Uint8Array
  logo?: Placement
}

export function buildScene({ symbol, style, cleared, logo }: SceneInput): Scene {
  const side = symbol.size + 2 * style.margin
  const { border, band } = frameMetrics(side, style)
  const width = side + 2 * border
  const height = side + border + band
  const bandOnTop = style.frame?.position === 'top'
  const codeX = border
  const codeY = bandOnTop ? band : border
  const ox = codeX + style.margin
  const oy = codeY + style.margin
  const layers: Layer[] = []

  if (style.frame) {
    const framePath = new PathBuilder()
    const bandY = bandOnTop ? 0 : codeY + side
    if (border > 0) {
      // The border and the band as one ring around the code's square.
      framePath.roundedRect(0, 0, width, height, 0)
      framePath
        .moveTo(codeX, codeY)
        .lineTo(codeX, codeY + side)
        .lineTo(codeX + side, codeY + side)
      framePath.lineTo(codeX + side, codeY).close()
    } else {
      framePath.roundedRect(0, bandY, width, band, 0)
    }
    layers.push({ path: framePath, paint: solid(style.frame.color ?? style.foregroundColor) })
  }

  const modulePaint = darkPaint(style, ox, oy, symbol.size)
  const roles = moduleRoles(symbol)
  const modules = new PathBuilder(ox, oy)
  drawModules(modules, symbol, roles, style.moduleShape ?? 'square', cleared)
  const separateFinders = style.finderColor !== undefined
  const finders = separateFinders ? new PathBuilder(ox, oy) : modules
  drawFinderRings(finders, symbol.size, style.finderShape ?? 'square')
  drawFinderDots(finders, symbol.size, style.finderDotShape ?? 'square')
  layers.push({ path: modules, paint: modulePaint })
  if (separateFinders && style.finderColor) layers.push({ path: finders, paint: solid(style.finderColor) })

  if (style.frame) {
    const bandY = bandOnTop ? 0 : codeY + side
    const text = textOutline(
      style.frame.text,
      width / 2,
      bandY + band / 2,
      band * 0.42,
      width - 2 * border - 2,
    )
    layers.push({ path: text.path, paint: solid(style.frame.textColor ?? style.backgroundColor) })
  }
  // The logo's box is given from the symbol's corner; the scene places it on the page.
  const placed = logo && { ...logo, x: logo.x + ox, y: logo.y + oy }
  return { width, height, background: style.backgroundColor, layers, ...(placed && { logo: placed }) }
}

function solid(color: string): Paint {
  return { kind: 'color', color }
}

/** The paint of the dark modules: the gradient over the symbol's square, else the foreground. */
function darkPaint(style: NormalizedStyle, ox: number, oy: number, size: number): Paint {
  const g = style.gradient
  if (!g) return solid(style.foregroundColor)
  const cx = ox + size / 2
  const cy = oy + size / 2
  if (g.type === 'radial') return { kind: 'radial', colors: g.colors, cx, cy, r: (size / 2) * Math.SQRT2 }
  const angle = ((g.rotation ?? 0) * Math.PI) / 180
  const dx = (Math.cos(angle) * size) / 2
  const dy = (Math.sin(angle) * size) / 2
  return { kind: 'linear', colors: g.colors, x1: cx - dx, y1: cy - dy, x2: cx + dx, y2: cy + dy }
}
