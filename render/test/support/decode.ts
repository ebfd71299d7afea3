import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Resvg } from '@resvg/resvg-js'
import jsQRModule from 'jsqr'
import { PNG } from 'pngjs'
import { missingCommand } from '../../../vitest.requirements.js'

/** RGBA pixels, 4 bytes each, rows top to bottom. */
export interface Bitmap {
  width: number
  height: number
  data: Uint8Array
}

// jsqr is CommonJS with `exports.default`: under NodeNext the default import is the module object,
// while vitest's interop may already hand over the function.
type JsQR = typeof jsQRModule.default
const jsQR: JsQR = jsQRModule.default ?? (jsQRModule as unknown as JsQR)

/**
 * ZBar and poppler are system packages, not npm ones. Their tests skip where they are missing,
 * saying so on stderr, like every test that needs something outside Node; under
 * QRCTL_REQUIRE_ALL_TESTS=1 (.ci/run) they run and fail with `MissingDecoderError` instead, and a
 * run that skipped any test fails. jsQR and ZXing-C++ are npm packages and always run.
 */
export const noZbar = missingCommand('zbarimg', 'zbar-tools')
export const noPdftoppm = missingCommand('pdftoppm', 'poppler-utils')

/** A decoder this suite needs is not installed (only reached when nothing may skip). */
export class MissingDecoderError extends Error {
  constructor(tool: string) {
    super(`${tool} not found on PATH; install the decoders: apt-get install zbar-tools poppler-utils`)
    this.name = 'MissingDecoderError'
  }
}

interface RunResult {
  stdout: Buffer
  stderr: string
}

// External decoders run at most one per core: more would only queue for the same CPUs and
// make every call's 30 s test timeout a lottery.
const slots = Math.max(1, availableParallelism())
let running = 0
const waiting: Array<() => void> = []

async function run(file: string, args: string[]): Promise<RunResult> {
  if (running >= slots) await new Promise<void>((resolve) => waiting.push(resolve))
  running++
  try {
    return await new Promise<RunResult>((resolve, reject) => {
      execFile(file, args, { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
        if (!error) resolve({ stdout, stderr: stderr.toString() })
        else if ((error as NodeJS.ErrnoException).code === 'ENOENT') reject(new MissingDecoderError(file))
        else reject(Object.assign(error, { stderr: stderr.toString() }))
      })
    })
  } finally {
    running--
    waiting.shift()?.()
  }
}

let workDir: string | undefined
let fileCount = 0

/** A fresh path in this process's scratch directory (removed by `cleanUpDecoders`). */
function scratchPath(extension: string): string {
  workDir ??= mkdtempSync(join(tmpdir(), 'qrctl-scan-'))
  fileCount++
  return join(workDir, `${fileCount}.${extension}`)
}

export function cleanUpDecoders(): void {
  if (workDir) rmSync(workDir, { recursive: true, force: true })
  workDir = undefined
}

export function readPng(png: Uint8Array): Bitmap {
  const image = PNG.sync.read(Buffer.from(png.buffer, png.byteOffset, png.byteLength))
  return { width: image.width, height: image.height, data: image.data }
}

export function writePng(bitmap: Bitmap): Buffer {
  const png = new PNG({ width: bitmap.width, height: bitmap.height })
  png.data = Buffer.from(bitmap.data.buffer, bitmap.data.byteOffset, bitmap.data.byteLength)
  return PNG.sync.write(png)
}

/**
 * The bitmap with `border` pixels of `color` ([r, g, b]) around it. Only for images drawn with
 * margin 0: a QR symbol needs a light quiet zone to be found, and a page or screen supplies one
 * around a margin-0 image, so the test supplies it too.
 */
export function addBorder(bitmap: Bitmap, border: number, color: readonly [number, number, number]): Bitmap {
  const width = bitmap.width + 2 * border
  const height = bitmap.height + 2 * border
  const data = new Uint8Array(width * height * 4)
  for (let i = 0; i < data.length; i += 4) {
    data[i] = color[0]
    data[i + 1] = color[1]
    data[i + 2] = color[2]
    data[i + 3] = 255
  }
  const rowBytes = bitmap.width * 4
  for (let y = 0; y < bitmap.height; y++)
    data.set(bitmap.data.subarray(y * rowBytes, (y + 1) * rowBytes), ((y + border) * width + border) * 4)
  return { width, height, data }
}

/** The raw bytes jsQR reads from the bitmap, or undefined when it finds no code. */
export function decodeWithJsqr(bitmap: Bitmap): Buffer | undefined {
  const pixels = new Uint8ClampedArray(bitmap.data.buffer, bitmap.data.byteOffset, bitmap.data.byteLength)
  const result = jsQR(pixels, bitmap.width, bitmap.height, { inversionAttempts: 'dontInvert' })
  return result ? Buffer.from(result.binaryData) : undefined
}

/**
 * The raw bytes ZBar reads from a PNG file, or undefined when it finds no code. `-Sbinary` stops
 * ZBar from guessing a character set and re-encoding the text.
 */
export async function decodeWithZbar(png: Uint8Array): Promise<Buffer | undefined> {
  const file = scratchPath('png')
  await writeFile(file, png)
  try {
    return (await run('zbarimg', ['-q', '--raw', '-Sbinary', file])).stdout
  } catch (error) {
    // Exit status 4: the image was read and holds no code it could decode.
    if ((error as { code?: unknown }).code === 4) return undefined
    throw error
  }
}

/** The SVG rasterised by resvg, `width` pixels wide. */
export function rasterizeSvg(svg: string, width: number): Bitmap {
  const rendered = new Resvg(svg, { fitTo: { mode: 'width', value: width } }).render()
  return { width: rendered.width, height: rendered.height, data: rendered.pixels }
}

/** The PDF's first page as PNG bytes, through poppler's `pdftoppm` at `dpi`. */
export async function rasterizePdf(pdf: Uint8Array, dpi = 150): Promise<Buffer> {
  const file = scratchPath('pdf')
  await writeFile(file, pdf)
  return (await run('pdftoppm', ['-png', '-r', String(dpi), '-singlefile', file])).stdout
}

export interface Decoded {
  jsqr: Buffer | undefined
  zbar: Buffer | undefined
}

/**
 * Both decoders' readings of one image. `png` is what ZBar reads when given, so it sees the file
 * as served; otherwise the bitmap is written out as a PNG for it.
 */
export async function decodeBoth(bitmap: Bitmap, png?: Uint8Array): Promise<Decoded> {
  const zbar = decodeWithZbar(png ?? writePng(bitmap))
  return { jsqr: decodeWithJsqr(bitmap), zbar: await zbar }
}
