import { num } from './path.js'
import { encodeRgbScanlines } from './png-encode.js'
import { rasterizeScene } from './raster.js'
import type { Paint, Scene } from './scene.js'

function paintAttribute(paint: Paint, id: string): { fill: string; def: string } {
  if (paint.kind === 'color') return { fill: paint.color, def: '' }
  const stops = `<stop offset="0" stop-color="${paint.colors[0]}"/><stop offset="1" stop-color="${paint.colors[1]}"/>`
  const def =
    paint.kind === 'linear'
      ? `<linearGradient id="${id}" gradientUnits="userSpaceOnUse" x1="${num(paint.x1)}" y1="${num(paint.y1)}" x2="${num(paint.x2)}" y2="${num(paint.y2)}">${stops}</linearGradient>`
      : `<radialGradient id="${id}" gradientUnits="userSpaceOnUse" cx="${num(paint.cx)}" cy="${num(paint.cy)}" r="${num(paint.r)}">${stops}</radialGradient>`
  return { fill: `url(#${id})`, def }
}

/**
 * The scene as SVG: a background rect, one `<path>` per paint (the outlines leave no edge between
 * neighbouring modules, so no seams at any zoom), the logo as an embedded PNG. `width` sets the
 * pixel size; without it the SVG fills its container.
 */
export function sceneToSvg(scene: Scene, width?: number): string {
  const { width: w, height: h } = scene
  const defs: string[] = []
  const paths = scene.layers.map((layer, i) => {
    const { fill, def } = paintAttribute(layer.paint, `g${i}`)
    if (def) defs.push(def)
    return layer.path.isEmpty ? '' : `<path fill="${fill}" fill-rule="nonzero" d="${layer.path}"/>`
  })
  const logo = scene.logo
    ? `<image x="${num(scene.logo.x)}" y="${num(scene.logo.y)}" width="${num(scene.logo.size)}" height="${num(scene.logo.size)}" preserveAspectRatio="xMidYMid meet" href="data:image/png;base64,${Buffer.from(scene.logo.png).toString('base64')}"/>`
    : ''
  const dimensions = width === undefined ? '' : ` width="${width}" height="${Math.round((width * h) / w)}"`
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${num(w)} ${num(h)}"${dimensions}>` +
    (defs.length > 0 ? `<defs>${defs.join('')}</defs>` : '') +
    `<rect width="${num(w)}" height="${num(h)}" fill="${scene.background}"/>` +
    paths.join('') +
    logo +
    '</svg>\n'
  )
}

/** RGBA pixels of the scene `width` px wide (the height follows from the frame). */
export interface Pixels {
  width: number
  height: number
  data: Uint8Array
}

/** The scene's height in px when drawn `width` px wide, as the SVG's `height` attribute says. */
function heightAt(scene: Scene, width: number): number {
  return Math.round((width * scene.height) / scene.width)
}

/**
 * The scene's RGBA pixels `width` px wide, drawn into the start of `into` when it is large
 * enough (every byte is written: the background first), else into a new buffer.
 */
export function sceneToPixels(scene: Scene, width: number, into?: Uint8Array): Pixels {
  const height = heightAt(scene, width)
  const bytes = width * height * 4
  const data = into && into.length >= bytes ? into.subarray(0, bytes) : new Uint8Array(bytes)
  rasterizeScene(scene, width, height, data, { channels: 4, stride: width * 4, offset: 0 })
  return { width, height, data }
}

/**
 * The scene as an 8-bit RGB PNG: drawn straight into the PNG's scanlines (each row behind its
 * filter byte), so encoding is only the deflate.
 */
export function sceneToPng(scene: Scene, width: number): Uint8Array {
  const height = heightAt(scene, width)
  const stride = 1 + width * 3
  const scanlines = new Uint8Array(stride * height)
  rasterizeScene(scene, width, height, scanlines, { channels: 3, stride, offset: 1 })
  return encodeRgbScanlines(width, height, scanlines)
}

/** The structural subset of pdfkit's document this needs (pdfkit is loaded lazily). */
interface PdfDoc {
  save(): PdfDoc
  restore(): PdfDoc
  scale(factor: number): PdfDoc
  rect(x: number, y: number, w: number, h: number): PdfDoc
  path(d: string): PdfDoc
  fill(color: unknown, rule?: 'non-zero' | 'even-odd'): PdfDoc
  image(
    src: Buffer,
    x: number,
    y: number,
    options: { fit: [number, number]; align: 'center'; valign: 'center' },
  ): PdfDoc
  linearGradient(x1: number, y1: number, x2: number, y2: number): PdfGradient
  radialGradient(x1: number, y1: number, r1: number, x2: number, y2: number, r2: number): PdfGradient
}
interface PdfGradient {
  stop(offset: number, color: string): PdfGradient
}

/** Draws the scene on a pdfkit page, `unit` points per module: every layer as vector paths. */
export function sceneToPdf(doc: PdfDoc, scene: Scene, unit: number): void {
  doc.save().scale(unit)
  doc.rect(0, 0, scene.width, scene.height).fill(scene.background)
  for (const layer of scene.layers) {
    if (layer.path.isEmpty) continue
    doc.path(layer.path.toString()).fill(pdfPaint(doc, layer.paint), 'non-zero')
  }
  if (scene.logo) {
    const { x, y, size, png } = scene.logo
    doc.image(Buffer.from(png), x, y, { fit: [size, size], align: 'center', valign: 'center' })
  }
  doc.restore()
}

function pdfPaint(doc: PdfDoc, paint: Paint): unknown {
  if (paint.kind === 'color') return paint.color
  const gradient =
    paint.kind === 'linear'
      ? doc.linearGradient(paint.x1, paint.y1, paint.x2, paint.y2)
      : doc.radialGradient(paint.cx, paint.cy, 0, paint.cx, paint.cy, paint.r)
  return gradient.stop(0, paint.colors[0]).stop(1, paint.colors[1])
}
