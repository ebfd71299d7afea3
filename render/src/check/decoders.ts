import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import jsQRModule from 'jsqr'
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader'

/** RGBA pixels, 4 bytes each, rows top to bottom. */
export interface Bitmap {
  width: number
  height: number
  data: Uint8Array
}

/** A decoder: the raw bytes it reads from the bitmap, or undefined when it finds no code. */
export type Decoder = (bitmap: Bitmap) => Promise<Uint8Array | undefined>

// jsqr is CommonJS with `exports.default`: under NodeNext the default import is the module object,
// while vitest's interop may already hand over the function.
type JsQR = typeof jsQRModule.default
const jsQR: JsQR = jsQRModule.default ?? (jsQRModule as unknown as JsQR)

/** jsQR (a JavaScript port of ZXing's Java reader). */
export const decodeJsqr: Decoder = async (bitmap) => {
  const pixels = new Uint8ClampedArray(bitmap.data.buffer, bitmap.data.byteOffset, bitmap.data.byteLength)
  const result = jsQR(pixels, bitmap.width, bitmap.height, { inversionAttempts: 'dontInvert' })
  return result ? Uint8Array.from(result.binaryData) : undefined
}

const require = createRequire(import.meta.url)
let zxingReady: Promise<unknown> | undefined

/**
 * ZXing-C++ through zxing-wasm. Its wasm is read from node_modules and handed over: left to
 * itself it fetches the file from a CDN, which a server must never do (STACK.md).
 */
function zxing(): Promise<unknown> {
  zxingReady ??= readFile(require.resolve('zxing-wasm/reader/zxing_reader.wasm')).then((wasm) =>
    prepareZXingModule({
      overrides: {
        wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer,
        locateFile: (path: string) => path,
      },
      fireImmediately: true,
    }),
  )
  return zxingReady
}

/** Loads ZXing-C++'s wasm ahead of the first check (a decode-check thread does as it starts). */
export function prepareDecoders(): Promise<unknown> {
  return zxing()
}

export const decodeZxing: Decoder = async (bitmap) => {
  await zxing()
  const image = {
    data: new Uint8ClampedArray(bitmap.data.buffer, bitmap.data.byteOffset, bitmap.data.byteLength),
    width: bitmap.width,
    height: bitmap.height,
    colorSpace: 'srgb',
  } as unknown as Parameters<typeof readBarcodes>[0]
  const [result] = await readBarcodes(image, { formats: ['QRCode'], maxNumberOfSymbols: 1, tryInvert: false })
  return result?.isValid ? result.bytes : undefined
}

/** The two independent decoders of the decode check (DESIGN §13), by the name `details.checks` gives. */
export const DECODERS: Record<'jsqr' | 'zxing-cpp', Decoder> = {
  jsqr: decodeJsqr,
  'zxing-cpp': decodeZxing,
}
