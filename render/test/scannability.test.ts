import { type ContentType, encodePayload, parseHexColor, type Style } from '@qrctl/contract'
import { afterAll, describe, expect, it } from 'vitest'
import {
  checkCapacity,
  createSymbol,
  maxBytesAt,
  normalizeStyle,
  PNG_SIZE,
  renderPdf,
  renderPng,
  renderSvg,
} from '../src/index.js'
import {
  addBorder,
  type Bitmap,
  cleanUpDecoders,
  type Decoded,
  decodeBoth,
  decodeWithJsqr,
  noPdftoppm,
  noZbar,
  rasterizePdf,
  rasterizeSvg,
  readPng,
} from './support/decode.js'

/**
 * Every rendered image goes through two independent decoders, jsQR and ZBar, and must give back
 * the payload's UTF-8 bytes exactly (DESIGN §5: every rendered image must decode back to the
 * encoded payload).
 */

type Format = 'png' | 'svg' | 'pdf'
const FORMATS: Format[] = ['png', 'svg', 'pdf']
const LEVELS = ['L', 'M', 'Q', 'H'] as const

function payloadOf(contentType: ContentType, content: string): string {
  const result = encodePayload({ contentType, content })
  if (!result.ok) throw new Error(`example ${contentType} content does not encode: ${result.message}`)
  return result.payload
}

/** One example of every content type, through the same encoder the API uses. */
const PAYLOADS: Array<[string, string]> = [
  ['url', payloadOf('url', 'https://example.com/menu/spring?table=12&lang=de#drinks')],
  ['text', payloadOf('text', 'Doors open at 19:00. Bring this ticket.')],
  ['text with emoji', payloadOf('text', 'Grüße aus Köln 👋🏽 — café 漢字 🇩🇪\nzweite Zeile')],
  ['email', payloadOf('email', 'first.last+tickets@mail.example.org')],
  ['phone', payloadOf('phone', '+49 (30) 1234-5678')],
  ['sms', payloadOf('sms', '+4930123456:Table 12 wants the bill, please')],
  [
    'wifi with escaped characters',
    payloadOf(
      'wifi',
      JSON.stringify({ ssid: 'Café;Guest,5G:"1"\\', password: 'p;ss,w:rd"\\1', encryption: 'WPA' }),
    ),
  ],
  [
    'vcard 3.0',
    payloadOf(
      'vcard',
      [
        'BEGIN:VCARD',
        'VERSION:3.0',
        'N:Müller;Anna;;Dr.;',
        'FN:Dr. Anna Müller',
        'ORG:Example GmbH',
        'TEL;TYPE=WORK,VOICE:+49 30 1234567',
        'EMAIL:anna.mueller@example.com',
        'URL:https://example.com/anna',
        'END:VCARD',
      ].join('\n'),
    ),
  ],
  [
    'vcard 4.0',
    payloadOf(
      'vcard',
      [
        'BEGIN:VCARD',
        'VERSION:4.0',
        'FN:Kenji Sato',
        'N:Sato;Kenji;;;',
        'TEL;VALUE=uri;TYPE=cell:tel:+81-90-1234-5678',
        'EMAIL:kenji@example.jp',
        'ADR;TYPE=work:;;1-2-3 Shibuya;Tokyo;;150-0002;Japan',
        'END:VCARD',
      ].join('\r\n'),
    ),
  ],
]

/** Exactly `bytes` bytes of lower-case letters, which only byte mode can carry. */
function byteModeText(bytes: number): string {
  let seed = 42
  let text = ''
  for (let i = 0; i < bytes; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    text += String.fromCharCode(97 + (seed % 26))
  }
  return text
}

/** Exactly `bytes` bytes of UTF-8 with two-, three- and four-byte characters. */
function utf8Text(bytes: number): string {
  const pieces = ['é', '€', '😀', 'a']
  let text = ''
  let length = 0
  for (let i = 0; length < bytes; i++) {
    const piece = pieces[i % pieces.length]!
    const size = Buffer.byteLength(piece)
    const next = length + size <= bytes ? piece : 'a'
    text += next
    length += Buffer.byteLength(next)
  }
  return text
}

/** Modules across the image, quiet zone included. */
function modulesAcross(payload: string, style: Style): number {
  const s = normalizeStyle(style)
  return createSymbol(payload, s.errorCorrectionLevel).size + 2 * s.margin
}

interface DecodeOptions {
  /** PNG width; default four pixels a module (at least the API's minimum of 64) to keep decoding cheap. */
  pngSize?: number
  /** Resolution jsQR's copy of a PDF page is rasterised at (ZBar always reads the 150 dpi page). */
  jsqrDpi?: number
}

/**
 * Renders in `format`, rasterises as a client would (resvg for SVG, poppler at 150 dpi for PDF)
 * and reads the result with both decoders.
 */
async function renderAndDecode(
  format: Format,
  payload: string,
  style: Style,
  options: DecodeOptions = {},
): Promise<Decoded> {
  const s = normalizeStyle(style)
  const modules = modulesAcross(payload, style)
  let bitmap: Bitmap
  let file: Uint8Array | undefined
  let jsqrBitmap: Bitmap | undefined
  if (format === 'png') {
    file = renderPng(payload, style, { size: options.pngSize ?? Math.max(PNG_SIZE.min, 4 * modules) })
    bitmap = readPng(file)
  } else if (format === 'svg') {
    bitmap = rasterizeSvg(renderSvg(payload, style), 4 * modules)
  } else {
    const pdf = await renderPdf(payload, style)
    file = await rasterizePdf(pdf, 150)
    bitmap = readPng(file)
    if (options.jsqrDpi) jsqrBitmap = readPng(await rasterizePdf(pdf, options.jsqrDpi))
  }
  if (s.margin === 0) {
    // Margin 0 is for layouts that supply their own quiet zone (a page, a card, a screen); a
    // symbol without one cannot be located, so this harness adds four modules of the background
    // colour around the image, as such a layout would. Nothing else about the image changes.
    const background = parseHexColor(s.backgroundColor)
    bitmap = addBorder(bitmap, Math.ceil((4 * bitmap.width) / modules), background)
    if (jsqrBitmap)
      jsqrBitmap = addBorder(jsqrBitmap, Math.ceil((4 * jsqrBitmap.width) / modules), background)
    file = undefined
  }
  const decoded = await decodeBoth(bitmap, file)
  return jsqrBitmap ? { ...decoded, jsqr: decodeWithJsqr(jsqrBitmap) } : decoded
}

/** Why `read` is not `expected`, in a line (a full diff of a 2953-byte payload helps nobody). */
function mismatch(read: Buffer | undefined, expected: Buffer): string | undefined {
  if (!read) return 'no code found'
  if (read.equals(expected)) return undefined
  let at = 0
  while (at < read.length && read[at] === expected[at]) at++
  const around = (bytes: Buffer) => bytes.subarray(at, at + 12).toString('hex')
  return `read ${read.length} bytes, expected ${expected.length}; first difference at byte ${at}: ${around(read)} instead of ${around(expected)}`
}

function expectPayload(decoded: Decoded, payload: string): void {
  const expected = Buffer.from(payload, 'utf8')
  expect(mismatch(decoded.jsqr, expected), 'jsQR').toBeUndefined()
  expect(mismatch(decoded.zbar, expected), 'ZBar').toBeUndefined()
}

afterAll(cleanUpDecoders)

const cases = PAYLOADS.flatMap(([name, payload], p) =>
  LEVELS.flatMap((errorCorrectionLevel, l) =>
    [0, 16].map((margin) => ({
      title: `${name} at level ${errorCorrectionLevel}, margin ${margin}`,
      payload,
      style: { errorCorrectionLevel, margin },
      /** The PDF grid's margin for this payload and level: a checkerboard of 0 and 16. */
      pdfMargin: (p + l) % 2 === 1 ? 16 : 0,
    })),
  ),
)

describe.each(FORMATS)('%s', (format) => {
  // PNG and SVG take every payload at every level with both margins. A PDF page costs several
  // times as much to rasterise and decode, so PDF takes half of that grid, a checkerboard: still
  // every payload at every level, and every payload and every level at both margins.
  const grid = format === 'pdf' ? cases.filter((c) => c.style.margin === c.pdfMargin) : cases
  const unread = noZbar || (format === 'pdf' && noPdftoppm)

  it.skipIf(unread).concurrent.each(grid.map((c) => [c.title, c] as const))(
    'decodes %s',
    async (_, { payload, style }) => {
      expectPayload(await renderAndDecode(format, payload, style), payload)
    },
  )

  it.skipIf(unread).concurrent.each([0, 4, 16])('decodes dark blue on cream, margin %i', async (margin) => {
    const payload = PAYLOADS[0]![1]
    const style: Style = { foregroundColor: '#1A1A2E', backgroundColor: '#F5E6C8', margin }
    expectPayload(await renderAndDecode(format, payload, style), payload)
  })

  // Version 40 at 150 dpi is 6.5 pixels a module, a fraction that jsQR's sampling grid drifts
  // on across 185 modules (ZBar and phone scanners do not); jsQR gets a 300 dpi copy there.
  const largest: DecodeOptions = format === 'pdf' ? { jsqrDpi: 300 } : {}

  it.skipIf(unread).concurrent.each(LEVELS)(
    'decodes the largest byte-mode content that fits at level %s',
    async (level) => {
      const maxBytes = maxBytesAt(level)
      const payload = byteModeText(maxBytes)
      expect(checkCapacity(payload, level)).toEqual({ ok: true })
      expect(checkCapacity(byteModeText(maxBytes + 1), level).ok).toBe(false)
      expectPayload(await renderAndDecode(format, payload, { errorCorrectionLevel: level }, largest), payload)
    },
  )
})

// The bytes a symbol carries do not depend on the format that draws it, so multi-byte UTF-8 at
// full capacity is checked once, on the cheapest format.
describe.skipIf(noZbar)('png with UTF-8 at full capacity', () => {
  it.concurrent.each(LEVELS)('decodes the largest UTF-8 content that fits at level %s', async (level) => {
    const payload = utf8Text(maxBytesAt(level))
    expect(Buffer.byteLength(payload)).toBe(maxBytesAt(level))
    expect(checkCapacity(payload, level)).toEqual({ ok: true })
    expectPayload(await renderAndDecode('png', payload, { errorCorrectionLevel: level }), payload)
  })
})

describe.skipIf(noZbar)('png sizes', () => {
  it.concurrent.each([64, 100, 512, 1000])('decodes a short URL at %i px', async (size) => {
    const payload = 'https://qrctl.example/r/aZ3kP9q'
    expectPayload(await renderAndDecode('png', payload, {}, { pngSize: size }), payload)
  })

  it('decodes a version 40 symbol with the widest quiet zone at 4096 px', async () => {
    const payload = byteModeText(maxBytesAt('H'))
    const style: Style = { errorCorrectionLevel: 'H', margin: 16 }
    expectPayload(await renderAndDecode('png', payload, style, { pngSize: 4096 }), payload)
  })
})
