import { STYLE_DEFAULTS, type Style, StyleOut } from '@qrctl/contract'

/** A style with every field filled in; colours as upper-case `#RRGGBB`. */
export type NormalizedStyle = Required<Style>

/** What the renderers accept: a stored style, a partial one, or none (all defaults). */
export type StyleInput = Style | null | undefined

function longHex(color: string): string {
  const digits = color.slice(1).toUpperCase()
  return digits.length === 3 ? `#${[...digits].map((d) => d + d).join('')}` : `#${digits}`
}

/**
 * Fills the defaults of a style and spells colours one way, so equal-looking styles render
 * (and cache) identically. The rules and the defaults are the contract's (`StyleOut`,
 * `STYLE_DEFAULTS`): a value the `Style` schema would reject throws a TypeError; contrast is
 * the schema's business, not the renderer's.
 * @example normalizeStyle({ foregroundColor: '#1a2' }) // { foregroundColor: '#11AA22', backgroundColor: '#FFFFFF', errorCorrectionLevel: 'M', margin: 4 }
 */
export function normalizeStyle(style: StyleInput): NormalizedStyle {
  const parsed = StyleOut.safeParse(style ?? {})
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    throw new TypeError(`Invalid style: ${problems.join('; ')}`)
  }
  const s = parsed.data
  return {
    foregroundColor: longHex(s.foregroundColor ?? STYLE_DEFAULTS.foregroundColor),
    backgroundColor: longHex(s.backgroundColor ?? STYLE_DEFAULTS.backgroundColor),
    errorCorrectionLevel: s.errorCorrectionLevel ?? STYLE_DEFAULTS.errorCorrectionLevel,
    margin: s.margin ?? STYLE_DEFAULTS.margin,
  }
}
