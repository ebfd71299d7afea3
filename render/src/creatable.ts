import {
  CreateQrCode,
  encodePayload,
  type Issue,
  type QrType,
  resolveType,
  toIssues,
  withLogoLevel,
} from '@qrctl/contract'
import { undrawableCharacters } from './design/font.js'
import { checkCapacity } from './symbol.js'

export type Creatable = { ok: true; input: CreateQrCode; type: QrType } | { ok: false; issues: Issue[] }

export interface CreatableOptions {
  /**
   * The short link a dynamic code will encode (any 7-character code), to check that it fits
   * too. Only the server knows its public address; without it only static codes are checked.
   */
  shortLink?: string
}

/**
 * Whether a new code can be created, by the rules the server applies: the contract's
 * CreateQrCode schema (fields, content per type, style and contrast, static vs dynamic), then
 * the capacity of its symbol at the style's error-correction level. The server and the CLI's
 * batch check both call this, so a row the CLI passes is a row the server accepts.
 * It lives here rather than in the contract because the capacity check needs `qrcode`.
 * @example checkCreatable({ name: 'x', contentType: 'text', content: 'hi' }) // { ok: true, input, type: 'static' }
 */
export function checkCreatable(input: unknown, options: CreatableOptions = {}): Creatable {
  const parsed = CreateQrCode.safeParse(input)
  if (!parsed.success) return { ok: false, issues: toIssues(parsed.error) }
  const drawable = styleDrawingIssues(parsed.data.style)
  if (drawable.length > 0) return { ok: false, issues: drawable }
  // A logo raises the error-correction level the code is stored with (DESIGN §13); the
  // capacity check uses the raised level.
  const checked = parsed.data.style
    ? { ...parsed.data, style: withLogoLevel(parsed.data.style) }
    : parsed.data
  const type = resolveType(checked)
  const level = checked.style?.errorCorrectionLevel ?? 'M'
  const encoded =
    type === 'dynamic' ? { ok: true as const, payload: options.shortLink } : encodePayload(checked)
  if (!encoded.ok) return { ok: false, issues: [{ path: 'content', message: encoded.message }] }
  const fit = encoded.payload === undefined ? { ok: true as const } : checkCapacity(encoded.payload, level)
  if (!fit.ok) return { ok: false, issues: [{ path: 'content', message: fit.message }] }
  return { ok: true, input: checked, type }
}

/**
 * What the schema cannot know about a valid style: frame text in characters the shipped font
 * has no outline for (DESIGN §13). Empty when the renderer can draw all of it.
 * @example styleDrawingIssues({ frame: { style: 'banner', text: 'Menü 中' } }) // [{ path: 'style.frame.text', message: 'The frame font cannot draw: 中' }]
 */
export function styleDrawingIssues(
  style: { frame?: { text: string } | undefined } | null | undefined,
): Issue[] {
  if (!style?.frame) return []
  const missing = undrawableCharacters(style.frame.text)
  if (missing.length === 0) return []
  const shown = missing.map((ch) =>
    ch.codePointAt(0)! < 0x20 ? `U+${ch.codePointAt(0)!.toString(16).padStart(4, '0').toUpperCase()}` : ch,
  )
  return [{ path: 'style.frame.text', message: `The frame font cannot draw: ${shown.join(' ')}` }]
}
