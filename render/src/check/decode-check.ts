import type { DecodeCheck } from '@qrctl/contract'
import { sceneToPixels } from '../design/draw.js'
import { LogoPlacementError } from '../design/logo.js'
import { designScene } from '../design/render.js'
import { normalizeStyle, type StyleInput } from '../style.js'
import { type Bitmap, DECODERS } from './decoders.js'

/** The large render of the decode check, in px. */
export const DECODE_CHECK_LARGE = 1024

/** The small render: the larger of 256 px and 4 px per module, quiet zone (and frame) included. */
export function smallCheckSize(widthInModules: number): number {
  return Math.max(256, Math.ceil(4 * widthInModules))
}

export interface DecodeCheckResult {
  ok: boolean
  checks: DecodeCheck[]
  /** Why nothing was rendered, when the design cannot be drawn scannably at all (a logo over a finder). */
  reason?: string
}

/** The render buffer no check is using now (see `decodeCheck`). */
let spare: Uint8Array | undefined

function sameBytes(a: Uint8Array | undefined, b: Uint8Array): boolean {
  return a !== undefined && a.length === b.length && a.every((byte, i) => byte === b[i])
}

/**
 * The decode check of DESIGN §13: the code's PNG rendered small and at 1024 px, each read by
 * jsQR and ZXing-C++; `ok` only when every reading is exactly the payload's bytes. The pixels
 * are those of the PNG the image routes serve at that width (the same scene, rasterised the
 * same way), without the PNG encoding in between.
 * @example await decodeCheck('https://example.com', { moduleShape: 'dot' }) // { ok: true, checks: [{ size: 256, decoder: 'jsqr', ok: true }, …] }
 */
export async function decodeCheck(
  payload: string,
  style: StyleInput,
  logo?: Uint8Array,
): Promise<DecodeCheckResult> {
  const s = normalizeStyle(style)
  const expected = new TextEncoder().encode(payload)
  let scene: ReturnType<typeof designScene>
  try {
    scene = designScene(payload, s, logo)
  } catch (error) {
    if (error instanceof LogoPlacementError) return { ok: false, checks: [], reason: error.message }
    throw error
  }
  // One scene (module units), rasterised at each size: the pixels of `renderDesignPng` at that
  // width. Both go into one buffer, kept for the next check of this thread (a 1024 px render is
  // ~5 MB): each size is read by both decoders before the next is drawn over it. A check that
  // starts while another still holds the buffer gets one of its own.
  let buffer = spare ?? new Uint8Array(0)
  spare = undefined
  const checks: DecodeCheck[] = []
  try {
    for (const size of [smallCheckSize(scene.width), DECODE_CHECK_LARGE]) {
      const bitmap: Bitmap = sceneToPixels(scene, size, buffer)
      if (bitmap.data.buffer !== buffer.buffer) buffer = new Uint8Array(bitmap.data.buffer)
      for (const [decoder, decode] of Object.entries(DECODERS)) {
        checks.push({ size, decoder, ok: sameBytes(await decode(bitmap), expected) })
      }
    }
  } finally {
    spare = buffer
  }
  return { ok: checks.every((check) => check.ok), checks }
}
