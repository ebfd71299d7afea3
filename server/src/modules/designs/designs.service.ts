import { type DecodeCheck, isDesigned, type Style } from '@qrctl/contract'
import { styleDrawingIssues } from '@qrctl/render'
import { decodeCheck } from '@qrctl/render/check'
import { AppError, validation } from '../../errors.js'

/**
 * 400 `unscannable` (DESIGN §10, §13): a styled code's renders did not all decode to its payload.
 * `details.checks` lists every render and decoder, so the caller sees which size failed where.
 */
export const unscannable = (checks: DecodeCheck[]) => {
  const failed = checks.filter((c) => !c.ok).map((c) => `${c.decoder} at ${c.size} px`)
  return new AppError(
    'unscannable',
    `This design does not scan reliably: ${failed.join(', ')} could not read it. Raise the contrast, use square finders or a larger margin, or drop the frame or logo`,
    { checks },
  )
}

/** One line for a batch item's error string: which renders failed. */
export function unscannableMessage(checks: DecodeCheck[]): string {
  const failed = checks.filter((c) => !c.ok).map((c) => `${c.decoder} at ${c.size} px`)
  return `unscannable: the design failed the decode check (${failed.join(', ')})`
}

export type DesignVerdict = { ok: true } | { ok: false; checks: DecodeCheck[] }

/**
 * The decode check of a style about to be saved, for a code encoding `payload`. A v1 style (no
 * §13 key) needs none: its plain squares always scan. Frame text the font cannot draw is a
 * validation error (thrown), checked before anything is rendered.
 */
export async function checkDesign(payload: string, style: Style | null | undefined): Promise<DesignVerdict> {
  if (!isDesigned(style)) return { ok: true }
  const drawing = styleDrawingIssues(style)
  if (drawing.length > 0) throw validation(drawing, drawing[0]?.message)
  const result = await decodeCheck(payload, style)
  return result.ok ? { ok: true } : { ok: false, checks: result.checks }
}

/** `checkDesign`, throwing 400 `unscannable` when the design fails. */
export async function assertScannable(payload: string, style: Style | null | undefined): Promise<void> {
  const verdict = await checkDesign(payload, style)
  if (!verdict.ok) throw unscannable(verdict.checks)
}
