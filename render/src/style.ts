import {
  type Frame,
  type Gradient,
  STYLE_DEFAULTS,
  type Style,
  StyleOut,
  withLogoLevel,
} from '@qrctl/contract'

type V1Key = 'foregroundColor' | 'backgroundColor' | 'errorCorrectionLevel' | 'margin'

/**
 * A style with every v1 field filled in and the design keys (DESIGN §13) as given; colours as
 * upper-case `#RRGGBB`.
 */
export type NormalizedStyle = Required<Pick<Style, V1Key>> & Omit<Style, V1Key>

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
  // A logo raises the level (DESIGN §13); stored styles already say so, given ones may not.
  const s = withLogoLevel(parsed.data)
  const normalized: NormalizedStyle = {
    foregroundColor: longHex(s.foregroundColor ?? STYLE_DEFAULTS.foregroundColor),
    backgroundColor: longHex(s.backgroundColor ?? STYLE_DEFAULTS.backgroundColor),
    errorCorrectionLevel: s.errorCorrectionLevel ?? STYLE_DEFAULTS.errorCorrectionLevel,
    margin: s.margin ?? STYLE_DEFAULTS.margin,
  }
  // Design keys only when given, so a v1 style normalizes (and caches) exactly as before.
  if (s.moduleShape) normalized.moduleShape = s.moduleShape
  if (s.finderShape) normalized.finderShape = s.finderShape
  if (s.finderDotShape) normalized.finderDotShape = s.finderDotShape
  if (s.finderColor) normalized.finderColor = longHex(s.finderColor)
  if (s.gradient) normalized.gradient = normalizeGradient(s.gradient)
  if (s.logo)
    normalized.logo = {
      assetId: s.logo.assetId.toLowerCase(),
      ...(s.logo.size !== undefined && { size: s.logo.size }),
      ...(s.logo.padding !== undefined && { padding: s.logo.padding }),
    }
  if (s.frame) normalized.frame = normalizeFrame(s.frame)
  return normalized
}

function normalizeGradient(g: Gradient): Gradient {
  return {
    type: g.type,
    colors: [longHex(g.colors[0]), longHex(g.colors[1])],
    ...(g.rotation !== undefined && { rotation: g.rotation }),
  }
}

function normalizeFrame(f: Frame): Frame {
  return {
    style: f.style,
    text: f.text,
    ...(f.position && { position: f.position }),
    ...(f.color && { color: longHex(f.color) }),
    ...(f.textColor && { textColor: longHex(f.textColor) }),
  }
}
