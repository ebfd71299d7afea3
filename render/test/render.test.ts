import { inflateSync } from 'node:zlib'
import type { Style } from '@qrctl/contract'
import { Resvg } from '@resvg/resvg-js'
import QRCode from 'qrcode'
import { afterAll, describe, expect, it } from 'vitest'
import {
  CapacityError,
  checkCapacity,
  createRenderCache,
  createSymbol,
  forEachDarkRun,
  maxBytesAt,
  normalizeStyle,
  PDF_MAX_SIDE_PT,
  PDF_MODULE_PT,
  PngSizeError,
  type QrSymbol,
  RENDER_CONTENT_TYPES,
  renderCached,
  renderEtag,
  renderPdf,
  renderPng,
  renderSvg,
  renderTerminal,
} from '../src/index.js'
import { type Bitmap, cleanUpDecoders, decodeBoth, noZbar, readPng } from './support/decode.js'

const URL_PAYLOAD = 'https://example.com/menu/spring?table=12'
const COLOURED: Style = { foregroundColor: '#1A1A2E', backgroundColor: '#F5E6C8' }
const FG = [0x1a, 0x1a, 0x2e]
const BG = [0xf5, 0xe6, 0xc8]

afterAll(cleanUpDecoders)

/** Whether the module at (row, col) of the symbol with its quiet zone is dark. */
function isDark(symbol: QrSymbol, margin: number, row: number, col: number): boolean {
  const r = row - margin
  const c = col - margin
  return r >= 0 && c >= 0 && r < symbol.size && c < symbol.size && symbol.modules[r * symbol.size + c] === 1
}

interface PngChunk {
  type: string
  data: Buffer
}

function pngChunks(png: Uint8Array): PngChunk[] {
  const bytes = Buffer.from(png)
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  const chunks: PngChunk[] = []
  for (let at = 8; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at)
    chunks.push({
      type: bytes.toString('latin1', at + 4, at + 8),
      data: bytes.subarray(at + 8, at + 8 + length),
    })
    at += 12 + length
  }
  return chunks
}

describe('renderPng', () => {
  it.each([64, 512, 1000, 4096])('is exactly %i px square, a 1-bit 2-colour palette image', (size) => {
    const chunks = pngChunks(renderPng(URL_PAYLOAD, null, { size }))
    const ihdr = chunks[0]!
    expect(ihdr.type).toBe('IHDR')
    expect(ihdr.data.readUInt32BE(0)).toBe(size)
    expect(ihdr.data.readUInt32BE(4)).toBe(size)
    expect(ihdr.data[8], 'bit depth').toBe(1)
    expect(ihdr.data[9], 'colour type 3: palette').toBe(3)
    const plte = chunks.find((c) => c.type === 'PLTE')
    expect(plte?.data, 'background, then foreground').toEqual(Buffer.from([255, 255, 255, 0, 0, 0]))
    expect(chunks.map((c) => c.type)).not.toContain('tRNS')
  })

  it('refuses a size with fewer pixels than the symbol has modules, naming the smallest that works', () => {
    const long = 'x'.repeat(200) // version 10 at M: 57 modules + 8 of quiet zone = 65
    expect(() => renderPng(long, null, { size: 64 })).toThrow(PngSizeError)
    expect(() => renderPng(long, null, { size: 64 })).toThrow('it needs at least 65 px')
    expect(() => renderPng(long, { margin: 0 }, { size: 64 })).not.toThrow()
    expect(pngChunks(renderPng(long, null, { size: 65 }))[0]!.data.readUInt32BE(0)).toBe(65)
  })

  it('defaults to 512 px', () => {
    expect(pngChunks(renderPng(URL_PAYLOAD, null))[0]!.data.readUInt32BE(0)).toBe(512)
  })

  it.each([
    ['a short URL', URL_PAYLOAD],
    ['a kilobyte of text', 'lorem ipsum dolor sit amet '.repeat(40)],
  ])('is at least 3× smaller than qrcode.toBuffer for %s at 512 px', async (_, payload) => {
    const ours = renderPng(payload, null, { size: 512 })
    const theirs = await QRCode.toBuffer(payload, { width: 512, margin: 4, errorCorrectionLevel: 'M' })
    expect(readPng(theirs).width).toBe(512)
    expect(ours.byteLength * 3).toBeLessThan(theirs.byteLength)
  })

  it("paints exactly the style's two colours", () => {
    const chunks = pngChunks(renderPng(URL_PAYLOAD, COLOURED, { size: 256 }))
    expect(chunks.find((c) => c.type === 'PLTE')?.data).toEqual(Buffer.from([...BG, ...FG]))
    const { data } = readPng(renderPng(URL_PAYLOAD, COLOURED, { size: 256 }))
    const colours = new Set<string>()
    for (let i = 0; i < data.length; i += 4) colours.add([...data.subarray(i, i + 4)].join(','))
    expect([...colours].sort()).toEqual([`${[...BG, 255]}`, `${[...FG, 255]}`].sort())
  })

  it.each([
    [1000, 4],
    [512, 0],
    [333, 16],
  ])('at %i px and margin %i draws every module as an equal whole-pixel square, centred', (size, margin) => {
    const symbol = createSymbol(URL_PAYLOAD, 'M')
    const n = symbol.size + 2 * margin
    const scale = Math.floor(size / n)
    const offset = (size - n * scale) >> 1
    const { data } = readPng(renderPng(URL_PAYLOAD, { ...COLOURED, margin }, { size }))
    let wrong = 0
    for (let y = 0; y < size; y++)
      for (let x = 0; x < size; x++) {
        const inside = x >= offset && y >= offset && x < offset + n * scale && y < offset + n * scale
        const dark =
          inside && isDark(symbol, margin, Math.floor((y - offset) / scale), Math.floor((x - offset) / scale))
        if (data[(y * size + x) * 4] !== (dark ? FG[0] : BG[0])) wrong++
      }
    expect(wrong).toBe(0)
  })

  it.each([63, 4097, 512.5, Number.NaN])('rejects size %s', (size) => {
    expect(() => renderPng(URL_PAYLOAD, null, { size })).toThrow(RangeError)
  })

  it('gives the same bytes for the same input', () => {
    expect(renderPng(URL_PAYLOAD, COLOURED)).toEqual(renderPng(URL_PAYLOAD, { ...COLOURED }))
  })
})

/** resvg parses with a strict XML parser (roxmltree): anything not well-formed throws. */
function parseSvg(svg: string): Resvg {
  return new Resvg(svg)
}

describe('renderSvg', () => {
  const svg = renderSvg(URL_PAYLOAD, { ...COLOURED, foregroundColor: '#1a1a2e', margin: 2 })
  const symbol = createSymbol(URL_PAYLOAD, 'M')
  const n = symbol.size + 4

  it('is one <svg> with a viewBox in modules, one background <rect> and exactly one <path>', () => {
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" [^>]*>.*<\/svg>\n$/s)
    expect(svg).toContain(`viewBox="0 0 ${n} ${n}"`)
    expect(svg.match(/<path/g)).toHaveLength(1)
    expect(svg.match(/<rect/g)).toHaveLength(1)
  })

  it("fills with the style's colours, spelled #RRGGBB", () => {
    expect(svg).toContain('<rect width="29" height="29" fill="#F5E6C8"/>'.replace(/29/g, String(n)))
    expect(svg).toMatch(/<path fill="#1A1A2E" d="M/)
  })

  it('parses as XML', () => {
    expect(() => parseSvg(svg)).not.toThrow()
    // The same parser refuses a document that is not well-formed, so the check above can fail.
    expect(() => parseSvg(svg.replace('</svg>', '</svgg>'))).toThrow()
  })

  it('draws every module exactly where the symbol has it', () => {
    // One pixel a module: each pixel is either wholly covered by the path or not at all.
    const rendered = parseSvg(svg).render()
    expect(rendered.width).toBe(n)
    let wrong = 0
    for (let y = 0; y < n; y++)
      for (let x = 0; x < n; x++)
        if (rendered.pixels[(y * n + x) * 4] !== (isDark(symbol, 2, y, x) ? FG[0] : BG[0])) wrong++
    expect(wrong).toBe(0)
  })

  it('adds width and height only when a size is given', () => {
    expect(svg).not.toMatch(/ width="\d+" height="\d+" shape/)
    expect(renderSvg(URL_PAYLOAD, null, { size: 300 })).toContain(' width="300" height="300"')
    expect(() => renderSvg(URL_PAYLOAD, null, { size: 0 })).toThrow(RangeError)
  })
})

/** The PDF's bytes with every Flate stream inflated in place, so operators can be searched. */
function pdfText(pdf: Uint8Array): string {
  const raw = Buffer.from(pdf).toString('latin1')
  return raw.replace(/stream\r?\n([\s\S]*?)\r?\nendstream/g, (whole, body: string) => {
    try {
      return `stream\n${inflateSync(Buffer.from(body, 'latin1')).toString('latin1')}\nendstream`
    } catch {
      return whole
    }
  })
}

describe('renderPdf', () => {
  it('is a vector PDF: rectangles filled with the style colours, no image', async () => {
    const pdf = await renderPdf(URL_PAYLOAD, COLOURED)
    expect(Buffer.from(pdf.subarray(0, 5)).toString()).toBe('%PDF-')
    const text = pdfText(pdf)
    // No image XObject and no operator that paints one (`/ImageB` etc. in pdfkit's default
    // ProcSet are legacy names every page carries, not images).
    expect(text).not.toMatch(/\/XObject|\/Subtype\s*\/Image|\sDo\s|\sBI\s/)
    const symbol = createSymbol(URL_PAYLOAD, 'M')
    let runs = 0
    forEachDarkRun(symbol, () => runs++)
    // The background rectangle, then one rectangle per horizontal run of dark modules.
    expect(text.match(/ re\n/g)).toHaveLength(runs + 1)
    const fills = [...text.matchAll(/^([\d.]+) ([\d.]+) ([\d.]+) scn$/gm)].map((m) =>
      m.slice(1).map((v) => Math.round(Number(v) * 255)),
    )
    expect(fills, 'the background, then the modules over it').toEqual([BG, FG])
    expect(text.match(/^f$/gm)).toHaveLength(2)
  })

  it.each([
    ['a short URL with the default margin', URL_PAYLOAD, { margin: 4 }],
    ['a short URL without margin', URL_PAYLOAD, { margin: 0 }],
    ['a version 40 symbol', 'x'.repeat(maxBytesAt('M')), { margin: 16 }],
  ])('sizes the page to the symbol and its quiet zone for %s', async (_, payload, style: Style) => {
    const n = createSymbol(payload, 'M').size + 2 * (style.margin ?? 4)
    const unit = Math.min(PDF_MODULE_PT, PDF_MAX_SIDE_PT / n)
    const side = n * unit
    expect(side).toBeLessThanOrEqual(PDF_MAX_SIDE_PT)
    const media = pdfText(await renderPdf(payload, style)).match(/\/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]/)
    expect(Number(media?.[1])).toBeCloseTo(side, 2)
    expect(Number(media?.[2])).toBeCloseTo(side, 2)
  })

  it('gives the same bytes for the same input', async () => {
    expect(await renderPdf(URL_PAYLOAD, COLOURED)).toEqual(await renderPdf(URL_PAYLOAD, COLOURED))
  })
})

const BLOCKS: Record<string, [boolean, boolean]> = {
  ' ': [false, false],
  '▄': [false, true],
  '▀': [true, false],
  '█': [true, true],
}

/** The terminal text drawn back into modules: `ink[row][col]`, two rows per line. */
function inkFromTerminal(text: string): boolean[][] {
  const rows: boolean[][] = []
  for (const line of text.split('\n').slice(0, -1)) {
    const top: boolean[] = []
    const bottom: boolean[] = []
    for (const ch of line) {
      const cell = BLOCKS[ch]
      if (!cell) throw new Error(`unexpected character ${JSON.stringify(ch)}`)
      top.push(cell[0])
      bottom.push(cell[1])
    }
    rows.push(top, bottom)
  }
  return rows
}

/**
 * The terminal as a bitmap, `scale` pixels a module, with four modules of the terminal's own
 * background around the text. Ink is dark on a light background, or light on a dark one when
 * `inkIsLight` (the inverted rendering, whose quiet zone is ink).
 */
function bitmapFromInk(ink: boolean[][], scale: number, inkIsLight: boolean): Bitmap {
  const border = 4 * scale
  const width = ink[0]!.length * scale + 2 * border
  const height = ink.length * scale + 2 * border
  const data = new Uint8Array(width * height * 4).fill(255)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const r = Math.floor((y - border) / scale)
      const c = Math.floor((x - border) / scale)
      const on = y >= border && x >= border && ink[r]?.[c] === true
      if (on !== inkIsLight) data.fill(0, (y * width + x) * 4, (y * width + x) * 4 + 3)
    }
  return { width, height, data }
}

describe('renderTerminal', () => {
  it.each([
    ['margin 4', { margin: 4 }],
    ['margin 1 (an odd number of rows)', { margin: 1 }],
    ['margin 0, level H', { margin: 0, errorCorrectionLevel: 'H' }],
  ] as const)('draws the symbol with its quiet zone in half blocks, %s', (_, style) => {
    const s = normalizeStyle(style)
    const symbol = createSymbol(URL_PAYLOAD, s.errorCorrectionLevel)
    const n = symbol.size + 2 * s.margin
    const text = renderTerminal(URL_PAYLOAD, style)
    const lines = text.split('\n')
    expect(lines.pop()).toBe('')
    expect(lines).toHaveLength(Math.ceil(n / 2))
    for (const line of lines) expect([...line]).toHaveLength(n)
    const ink = inkFromTerminal(text)
    for (let r = 0; r < n; r++)
      for (let c = 0; c < n; c++) expect(ink[r]![c], `module ${r},${c}`).toBe(isDark(symbol, s.margin, r, c))
    // A padding row below an odd number of rows stays blank.
    if (n % 2 === 1) expect(ink[n]!.every((on) => !on)).toBe(true)
  })

  it.skipIf(noZbar).each([
    ['dark ink on a light terminal', false],
    ['light ink on a dark terminal (invert)', true],
  ])('decodes when drawn back into a bitmap: %s', async (_, invert) => {
    const text = renderTerminal(URL_PAYLOAD, null, { invert })
    const decoded = await decodeBoth(bitmapFromInk(inkFromTerminal(text), 4, invert))
    expect(decoded.jsqr?.toString()).toBe(URL_PAYLOAD)
    expect(decoded.zbar?.toString()).toBe(URL_PAYLOAD)
  })
})

describe('checkCapacity', () => {
  it.each([
    ['L', 2953],
    ['M', 2331],
    ['Q', 1663],
    ['H', 1273],
  ] as const)('fits %s up to its byte-mode capacity of %i bytes, and says so one byte over', (level, max) => {
    expect(maxBytesAt(level)).toBe(max)
    expect(checkCapacity('x'.repeat(max), level)).toEqual({ ok: true })
    expect(checkCapacity('x'.repeat(max + 1), level)).toEqual({
      ok: false,
      message: `Content is ${max + 1} bytes encoded; at error-correction level ${level} at most ${max} bytes fit`,
      maxBytes: max,
      bytes: max + 1,
    })
  })

  it('counts UTF-8 bytes, not characters', () => {
    const result = checkCapacity('€'.repeat(778), 'M')
    expect(result).toMatchObject({ ok: false, bytes: 2334, maxBytes: 2331 })
    expect(checkCapacity('€'.repeat(777), 'M')).toEqual({ ok: true })
  })

  it('fits longer digit-only content, which packs denser, exactly as qrcode decides', () => {
    expect(checkCapacity('7'.repeat(7089), 'L')).toEqual({ ok: true })
    expect(checkCapacity('7'.repeat(7090), 'L').ok).toBe(false)
    expect(() => QRCode.create('7'.repeat(7089), { errorCorrectionLevel: 'L' })).not.toThrow()
    expect(() => QRCode.create('7'.repeat(7090), { errorCorrectionLevel: 'L' })).toThrow()
  })

  it('refuses empty content', () => {
    expect(checkCapacity('', 'M')).toMatchObject({ ok: false, bytes: 0 })
  })

  it('makes the renderers throw CapacityError with the byte counts', async () => {
    const payload = 'x'.repeat(1274)
    const expected = { name: 'CapacityError', maxBytes: 1273, bytes: 1274 }
    const style: Style = { errorCorrectionLevel: 'H' }
    for (const render of [() => renderPng(payload, style), () => renderSvg(payload, style)]) {
      expect(render).toThrow(CapacityError)
      expect(render).toThrow(expect.objectContaining(expected))
    }
    await expect(renderPdf(payload, style)).rejects.toMatchObject(expected)
  })
})

describe('createRenderCache', () => {
  it('returns the same bytes and ETag on a hit, without rendering again', () => {
    const cache = createRenderCache()
    const first = cache.png(URL_PAYLOAD, COLOURED, 256)
    const second = cache.png(URL_PAYLOAD, { ...COLOURED }, 256)
    expect(second.body).toBe(first.body)
    expect(second.etag).toBe(first.etag)
    expect(first.body).toEqual(renderPng(URL_PAYLOAD, COLOURED, { size: 256 }))
    expect(first.etag).toBe(renderEtag('png', URL_PAYLOAD, COLOURED, { size: 256 }))
    expect(first.etag).toMatch(/^"[\w-]{27}"$/)
    expect(first.contentType).toBe('image/png')
    expect(cache.stats()).toEqual({ entries: 1, bytes: first.body.byteLength, hits: 1, misses: 1 })
  })

  it('keys on everything that changes the bytes, and only on that', () => {
    const etag = (format: 'png' | 'svg' | 'pdf', style: Style | null, size?: number) =>
      renderEtag(format, URL_PAYLOAD, style, { size })
    const base = etag('png', null, 512)
    const different = [
      etag('png', { foregroundColor: '#111111' }, 512),
      etag('png', { backgroundColor: '#EEEEEE' }, 512),
      etag('png', { errorCorrectionLevel: 'H' }, 512),
      etag('png', { margin: 0 }, 512),
      etag('png', null, 256),
      etag('svg', null),
      etag('pdf', null),
      renderEtag('png', `${URL_PAYLOAD}x`, null, { size: 512 }),
    ]
    expect(new Set([base, ...different]).size).toBe(different.length + 1)
    // Defaults filled in and colours spelled one way: these are all the same image.
    for (const same of [
      etag('png', null),
      etag('png', {}, 512),
      etag('png', { foregroundColor: '#000', backgroundColor: '#fff', errorCorrectionLevel: 'M', margin: 4 }),
    ])
      expect(same).toBe(base)
    // SVG and PDF have no pixel size, so a size does not split their cache entries.
    expect(etag('svg', null, 1024)).toBe(etag('svg', null))
  })

  it('evicts the least recently used entry beyond maxEntries', () => {
    const cache = createRenderCache({ maxEntries: 2 })
    cache.svg('a', null)
    cache.svg('b', null)
    cache.svg('a', null)
    cache.svg('c', null)
    expect(cache.stats()).toMatchObject({ entries: 2, hits: 1, misses: 3 })
    cache.svg('a', null)
    cache.svg('c', null)
    expect(cache.stats()).toMatchObject({ hits: 3, misses: 3 })
    cache.svg('b', null)
    expect(cache.stats()).toMatchObject({ entries: 2, hits: 3, misses: 4 })
  })

  it('evicts the least recently used entries beyond maxBytes, and keeps nothing bigger than it', () => {
    const one = Math.max(...['a', 'b', 'c'].map((p) => renderPng(p, null, { size: 64 }).byteLength))
    const cache = createRenderCache({ maxBytes: 2 * one + 10 })
    cache.png('a', null, 64)
    cache.png('b', null, 64)
    expect(cache.stats()).toMatchObject({ entries: 2 })
    cache.png('c', null, 64)
    expect(cache.stats().entries).toBe(2)
    expect(cache.stats().bytes).toBeLessThanOrEqual(2 * one + 10)
    cache.png('c', null, 64)
    cache.png('b', null, 64)
    cache.png('a', null, 64)
    expect(cache.stats()).toMatchObject({ hits: 2, misses: 4 })

    const big = cache.png('a big one', null, 4096)
    expect(big.body.byteLength).toBeGreaterThan(2 * one + 10)
    expect(cache.stats().entries).toBe(2)
  })

  it('counts the bytes of an image stored twice (concurrent misses) once', async () => {
    const cache = createRenderCache()
    const [a, b] = await Promise.all([cache.pdf(URL_PAYLOAD, null), cache.pdf(URL_PAYLOAD, null)])
    expect(a.body).toEqual(b.body)
    expect(cache.stats()).toMatchObject({ entries: 1, bytes: a.body.byteLength })
  })

  it('renders every format through renderCached with its content type', async () => {
    const cache = createRenderCache()
    for (const format of ['png', 'svg', 'pdf'] as const) {
      const image = await renderCached(cache, format, URL_PAYLOAD, COLOURED, { size: 128 })
      expect(image).toMatchObject({ format, contentType: RENDER_CONTENT_TYPES[format] })
      expect(image.etag).toBe(renderEtag(format, URL_PAYLOAD, COLOURED, { size: 128 }))
    }
    expect(new TextDecoder().decode((await renderCached(cache, 'svg', URL_PAYLOAD, COLOURED)).body)).toBe(
      renderSvg(URL_PAYLOAD, COLOURED),
    )
    expect(cache.stats()).toMatchObject({ entries: 3, hits: 1 })
    cache.clear()
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0 })
  })
})
