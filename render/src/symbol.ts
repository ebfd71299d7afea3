import { createRequire } from 'node:module'
import type { ErrorCorrectionLevel } from '@qrctl/contract'
import QRCode from 'qrcode'

/** The module matrix of one QR symbol, as `qrcode` builds it: `modules[row * size + col]` is 1 when dark. */
export interface QrSymbol {
  size: number
  modules: Uint8Array
  version: number
}

export type CapacityResult = { ok: true } | { ok: false; message: string; maxBytes: number; bytes: number }

/** Thrown by the renderers when the payload does not fit a QR symbol at the chosen level. */
export class CapacityError extends RangeError {
  readonly maxBytes: number
  readonly bytes: number
  constructor(result: Extract<CapacityResult, { ok: false }>) {
    super(result.message)
    this.name = 'CapacityError'
    this.maxBytes = result.maxBytes
    this.bytes = result.bytes
  }
}

// qrcode's own segmenting and capacity tables, so the capacity check decides exactly as
// QRCode.create does, without building the matrix and trying all eight masks (~50× cheaper).
interface QrSegment {
  getBitsLength(): number
}
interface QrInternals {
  segments: { rawSplit(data: string): QrSegment[]; fromString(data: string, version: number): QrSegment[] }
  version: {
    getBestVersionForData(segments: QrSegment[], level: object): number | undefined
    getCapacity(version: number, level: object): number
  }
  levels: Record<ErrorCorrectionLevel, object>
}
const require = createRequire(import.meta.url)
const internals: QrInternals = {
  segments: require('qrcode/lib/core/segments'),
  version: require('qrcode/lib/core/version'),
  levels: require('qrcode/lib/core/error-correction-level'),
}

const encoder = new TextEncoder()

/** Byte-mode capacity of the largest symbol (version 40) at a level: L 2953, M 2331, Q 1663, H 1273. */
export function maxBytesAt(level: ErrorCorrectionLevel): number {
  return internals.version.getCapacity(40, internals.levels[level])
}

/**
 * Whether a payload fits a QR symbol at an error-correction level. `qrcode` decides (it packs
 * digits and upper-case text into denser modes, so some payloads longer than `maxBytes` fit);
 * `maxBytes` is the byte-mode capacity of version 40.
 * @example checkCapacity('x'.repeat(3012)) // { ok: false, message: 'Content is 3012 bytes encoded; at error-correction level M at most 2331 bytes fit', maxBytes: 2331, bytes: 3012 }
 */
export function checkCapacity(
  payload: string,
  errorCorrectionLevel: ErrorCorrectionLevel = 'M',
): CapacityResult {
  const bytes = encoder.encode(payload).length
  const maxBytes = maxBytesAt(errorCorrectionLevel)
  if (bytes === 0)
    return { ok: false, message: 'Content is empty; a QR code needs at least 1 byte', maxBytes, bytes }
  const level = internals.levels[errorCorrectionLevel]
  // The same two steps as qrcode's createSymbol: estimate a version from a raw split, build the
  // optimal segments for it, then find the smallest version that holds them.
  const estimated = internals.version.getBestVersionForData(internals.segments.rawSplit(payload), level)
  const segments = internals.segments.fromString(payload, estimated ?? 40)
  if (internals.version.getBestVersionForData(segments, level) !== undefined) return { ok: true }
  return {
    ok: false,
    message: `Content is ${bytes} bytes encoded; at error-correction level ${errorCorrectionLevel} at most ${maxBytes} bytes fit`,
    maxBytes,
    bytes,
  }
}

/** Builds the symbol with `qrcode`; throws `CapacityError` when the payload does not fit. */
export function createSymbol(payload: string, errorCorrectionLevel: ErrorCorrectionLevel): QrSymbol {
  let qr: QRCode.QRCode
  try {
    qr = QRCode.create(payload, { errorCorrectionLevel })
  } catch (error) {
    const capacity = checkCapacity(payload, errorCorrectionLevel)
    throw capacity.ok ? error : new CapacityError(capacity)
  }
  return { size: qr.modules.size, modules: qr.modules.data, version: qr.version }
}

/** Calls `draw(col, row, length)` for every horizontal run of dark modules, row by row. */
export function forEachDarkRun(
  symbol: QrSymbol,
  draw: (col: number, row: number, length: number) => void,
): void {
  const { size, modules } = symbol
  for (let row = 0; row < size; row++) {
    const base = row * size
    let col = 0
    while (col < size) {
      if (modules[base + col] === 0) {
        col++
        continue
      }
      const start = col
      while (col < size && modules[base + col] !== 0) col++
      draw(start, row, col - start)
    }
  }
}
