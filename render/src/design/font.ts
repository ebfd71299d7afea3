import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { PathBuilder } from './path.js'

// fontkit ships no types; this is the little of it the renderer uses.
interface GlyphPath {
  scale(sx: number, sy: number): GlyphPath
  translate(x: number, y: number): GlyphPath
  mapPoints(fn: (x: number, y: number) => [number, number]): GlyphPath
  toSVG(): string
}
interface GlyphRun {
  glyphs: Array<{ path: GlyphPath }>
  positions: Array<{ xAdvance: number; xOffset: number; yOffset: number }>
  advanceWidth: number
}
interface Font {
  unitsPerEm: number
  capHeight: number
  hasGlyphForCodePoint(codePoint: number): boolean
  layout(text: string): GlyphRun
}

/** The font frame text is drawn with: DejaVu Sans Bold, shipped in `fonts/` with its licence. */
export const FRAME_FONT_FILE = new URL('../../fonts/DejaVuSans-Bold.ttf', import.meta.url)

// Required, not imported: fontkit ships no type declarations, and a declaration file of ours
// would not reach the packages that compile this one from source.
const fontkit = createRequire(import.meta.url)('fontkit') as { create(buffer: Uint8Array): unknown }

let font: Font | undefined

function frameFont(): Font {
  font ??= fontkit.create(readFileSync(FRAME_FONT_FILE)) as Font
  return font
}

/**
 * The characters of `text` the frame font cannot draw (each once, in order), so a frame text
 * is refused naming them rather than drawn with boxes. Controls are never drawable.
 * @example undrawableCharacters('Scan 中文') // ['中', '文']
 */
export function undrawableCharacters(text: string): string[] {
  const f = frameFont()
  const missing = new Set<string>()
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || !f.hasGlyphForCodePoint(cp)) missing.add(ch)
  }
  return [...missing]
}

export interface TextOutline {
  /** The glyphs' outlines, in the caller's units, already placed. */
  path: PathBuilder
  width: number
}

/**
 * `text` as glyph outlines: cap height `capHeight` units, centred on `centerX`, its baseline
 * placed so the capitals are centred vertically on `centerY`; shrunk to fit `maxWidth`.
 */
// Laying text out costs milliseconds; a frame's text repeats across sizes and formats.
const outlines = new Map<string, TextOutline>()

export function textOutline(
  text: string,
  centerX: number,
  centerY: number,
  capHeight: number,
  maxWidth: number,
): TextOutline {
  const key = JSON.stringify([text, centerX, centerY, capHeight, maxWidth])
  const cached = outlines.get(key)
  if (cached) return cached
  const outline = layOut(text, centerX, centerY, capHeight, maxWidth)
  outlines.set(key, outline)
  if (outlines.size > 256) outlines.delete(outlines.keys().next().value as string)
  return outline
}

function layOut(
  text: string,
  centerX: number,
  centerY: number,
  capHeight: number,
  maxWidth: number,
): TextOutline {
  const f = frameFont()
  const run = f.layout(text)
  const capUnits = f.capHeight > 0 ? f.capHeight : f.unitsPerEm * 0.73
  let scale = capHeight / capUnits
  if (run.advanceWidth * scale > maxWidth) scale = maxWidth / run.advanceWidth
  const width = run.advanceWidth * scale
  let penX = centerX - width / 2
  const baseline = centerY + (capUnits * scale) / 2
  const parts: string[] = []
  run.glyphs.forEach((glyph, i) => {
    const pos = run.positions[i]!
    const x0 = penX + pos.xOffset * scale
    const y0 = baseline - pos.yOffset * scale
    // Font units point up; the page's y points down.
    parts.push(glyph.path.mapPoints((x, y) => [round(x0 + x * scale), round(y0 - y * scale)]).toSVG())
    penX += pos.xAdvance * scale
  })
  return { path: PathBuilder.fromSvg(parts.join('')), width }
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000
}
