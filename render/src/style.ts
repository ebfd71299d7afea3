import { type ErrorCorrectionLevel, STYLE_DEFAULTS, type Style } from '@qrctl/contract'

/** A style with every field filled in; colours as upper-case `#RRGGBB`. */
export type NormalizedStyle = Required<Style>

/** What the renderers accept: a stored style, a partial one, or none (all defaults). */
export type StyleInput = Style | null | undefined

const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/
const EC_LEVELS: readonly ErrorCorrectionLevel[] = ['L', 'M', 'Q', 'H']

function normalizeColor(value: string, field: string): string {
  if (!HEX_COLOR.test(value)) throw new TypeError(`${field} must be #RGB or #RRGGBB, got ${value}`)
  const digits = value.slice(1).toUpperCase()
  return digits.length === 3 ? `#${[...digits].map((d) => d + d).join('')}` : `#${digits}`
}

/**
 * Fills the defaults of a style and spells colours one way, so equal-looking styles render
 * (and cache) identically. Throws on values the `Style` schema would reject; contrast is the
 * schema's business, not the renderer's.
 * @example normalizeStyle({ foregroundColor: '#1a2' }) // { foregroundColor: '#11AA22', backgroundColor: '#FFFFFF', errorCorrectionLevel: 'M', margin: 4 }
 */
export function normalizeStyle(style: StyleInput): NormalizedStyle {
  const errorCorrectionLevel = style?.errorCorrectionLevel ?? STYLE_DEFAULTS.errorCorrectionLevel
  if (!EC_LEVELS.includes(errorCorrectionLevel))
    throw new TypeError(`errorCorrectionLevel must be L, M, Q or H, got ${errorCorrectionLevel}`)
  const margin = style?.margin ?? STYLE_DEFAULTS.margin
  if (!Number.isInteger(margin) || margin < 0 || margin > 16)
    throw new RangeError(`margin must be a whole number 0–16, got ${margin}`)
  return {
    foregroundColor: normalizeColor(
      style?.foregroundColor ?? STYLE_DEFAULTS.foregroundColor,
      'foregroundColor',
    ),
    backgroundColor: normalizeColor(
      style?.backgroundColor ?? STYLE_DEFAULTS.backgroundColor,
      'backgroundColor',
    ),
    errorCorrectionLevel,
    margin,
  }
}
