import { isDesigned } from '@qrctl/contract'
import { sceneToPdf } from './design/draw.js'
import { designScene } from './design/render.js'
import { normalizeStyle, type StyleInput } from './style.js'
import { createSymbol, forEachDarkRun } from './symbol.js'

/** A module is 1/8 inch (9 pt), shrunk when needed so the page stays at most 8 inches (576 pt) square. */
export const PDF_MODULE_PT = 9
export const PDF_MAX_SIDE_PT = 576

// Fixed so the same code always yields the same bytes (pdfkit stamps the current time otherwise,
// and derives the file ID from it).
const CREATION_DATE = new Date('2026-01-01T00:00:00Z')

/**
 * The code as a one-page vector PDF: the page is the symbol plus its quiet zone, filled with the
 * background colour; the dark modules are one filled path of rectangles (one per horizontal run).
 * @example await renderPdf('https://example.com', { foregroundColor: '#1A1A2E' }) // Uint8Array starting with %PDF-
 */
export async function renderPdf(
  payload: string,
  style: StyleInput,
  options: { logo?: Uint8Array | undefined } = {},
): Promise<Uint8Array> {
  const s = normalizeStyle(style)
  const scene = isDesigned(s) ? designScene(payload, s, options.logo) : undefined
  const symbol = createSymbol(payload, s.errorCorrectionLevel)
  const n = scene ? Math.max(scene.width, scene.height) : symbol.size + 2 * s.margin
  const unit = Math.min(PDF_MODULE_PT, PDF_MAX_SIDE_PT / n)
  const side = n * unit
  const [pageWidth, pageHeight] = scene ? [scene.width * unit, scene.height * unit] : [side, side]
  // Loaded here, not at import: pdfkit costs ~120-250 ms to load, and most users of the renderer
  // (the CLI's batch checks and terminal output) never draw a PDF.
  const { default: PDFDocument } = await import('pdfkit')
  const doc = new PDFDocument({
    size: [pageWidth, pageHeight],
    margin: 0,
    info: { Title: 'QR code', Creator: 'qrctl', CreationDate: CREATION_DATE },
  })
  const chunks: Buffer[] = []
  doc.on('data', (chunk: Buffer) => chunks.push(chunk))
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve)
    doc.on('error', reject)
  })
  if (scene) {
    sceneToPdf(doc, scene, unit)
    doc.end()
    return collect(chunks, done)
  }
  doc.rect(0, 0, side, side).fill(s.backgroundColor)
  forEachDarkRun(symbol, (col, row, length) => {
    doc.rect((col + s.margin) * unit, (row + s.margin) * unit, length * unit, unit)
  })
  doc.fill(s.foregroundColor)
  doc.end()
  return collect(chunks, done)
}

async function collect(chunks: Buffer[], done: Promise<void>): Promise<Uint8Array> {
  await done
  const pdf = Buffer.concat(chunks)
  return new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength)
}
