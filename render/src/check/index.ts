/**
 * `@qrctl/render/check`: the decode check of styled codes (DESIGN §13) and its decoders. A
 * subpath of its own, so plain rendering never loads the decoders' wasm.
 */
export { DECODE_CHECK_LARGE, type DecodeCheckResult, decodeCheck, smallCheckSize } from './decode-check.js'
export { type Bitmap, DECODERS, type Decoder, decodeJsqr, decodeZxing, prepareDecoders } from './decoders.js'
export { createDecodeCheckPool, type DecodeCheckPool, type DecodeCheckPoolOptions } from './pool.js'
