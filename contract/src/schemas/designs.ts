import { z } from 'zod'
import { contrastRatio, relativeLuminance } from '../payload/contrast.js'
import { HexColor, strictObject, Uuid } from './common.js'

/** How a data module is drawn (DESIGN §13). Timing and alignment patterns stay square whatever this says. */
export const ModuleShape = z
  .enum(['square', 'rounded', 'dot'])
  .describe('How data modules are drawn: square (default), rounded or dot')
export type ModuleShape = z.infer<typeof ModuleShape>

/** The outer ring or the inner 3×3 of the three finder patterns. */
export const FinderShape = z.enum(['square', 'rounded', 'circle'])
export type FinderShape = z.infer<typeof FinderShape>

export const Gradient = strictObject({
  type: z.enum(['linear', 'radial']).describe('linear (along `rotation`) or radial (from the centre)'),
  colors: z
    .tuple([HexColor, HexColor])
    .describe('Two stops, start and end; each needs 3:1 contrast with the background'),
  rotation: z
    .number()
    .min(0, 'Must be 0–360')
    .max(360, 'Must be 0–360')
    .optional()
    .describe('Degrees clockwise from left-to-right, 0–360 (default 0); linear only'),
}).describe('Painted over the dark modules instead of foregroundColor')
export type Gradient = z.infer<typeof Gradient>

/** Frame text: 1–30 characters; the renderer also refuses characters its font cannot draw. */
export const FRAME_TEXT_MAX = 30

export const Frame = strictObject({
  style: z
    .enum(['box', 'banner'])
    .describe('banner: a band holding the text; box: the band plus a border on every side'),
  text: z
    .string()
    .min(1, 'Must not be empty')
    .refine((text) => [...text].length <= FRAME_TEXT_MAX, `Must be at most ${FRAME_TEXT_MAX} characters`)
    .refine((text) => text.trim().length > 0, 'Must not be only spaces')
    .describe('The call to action, 1–30 characters, drawn as outlines'),
  position: z.enum(['bottom', 'top']).optional().describe('Where the band goes (default bottom)'),
  color: HexColor.optional().describe('Band and border colour (default the foreground colour)'),
  textColor: HexColor.optional().describe('Text colour (default the background colour); 3:1 against `color`'),
}).describe('A frame around the code with a line of text; it makes the image taller')
export type Frame = z.infer<typeof Frame>

export const LOGO_SIZE = { min: 0.1, max: 0.3, default: 0.2 } as const
export const LOGO_PADDING = { max: 4, default: 1 } as const

export const Logo = strictObject({
  assetId: Uuid.describe('An asset of your account (POST /assets)'),
  size: z
    .number()
    .min(LOGO_SIZE.min, 'Must be 0.1–0.3')
    .max(LOGO_SIZE.max, 'Must be 0.1–0.3')
    .optional()
    .describe("Width of the logo's box as a fraction of the symbol's width, 0.1–0.3 (default 0.2)"),
  padding: z
    .number()
    .int('Must be a whole number')
    .min(0, 'Must be 0–4')
    .max(LOGO_PADDING.max, 'Must be 0–4')
    .optional()
    .describe('Modules cleared around the logo, 0–4 (default 1)'),
}).describe('A logo drawn in the middle; error correction is raised to Q (size ≤ 0.2) or H')
export type Logo = z.infer<typeof Logo>

/**
 * The error-correction level a style is stored with: a logo raises it to at least Q (size up to
 * 0.2) or H (above), never lowers it (DESIGN §13).
 * @example logoLevel({ logo: { assetId, size: 0.25 } }) // 'H'
 */
export function withLogoLevel<
  T extends { errorCorrectionLevel?: 'L' | 'M' | 'Q' | 'H' | undefined; logo?: Logo | undefined },
>(style: T): T {
  if (!style.logo) return style
  const needed = (style.logo.size ?? LOGO_SIZE.default) > 0.2 ? 'H' : 'Q'
  const order = ['L', 'M', 'Q', 'H'] as const
  const current = style.errorCorrectionLevel ?? 'M'
  return order.indexOf(current) >= order.indexOf(needed) ? style : { ...style, errorCorrectionLevel: needed }
}

/** The keys DESIGN §13 adds to `style`; any of them makes a style "designed" and decode-checked. */
export const designShape = {
  moduleShape: ModuleShape.optional(),
  finderShape: FinderShape.optional().describe(
    'Outer ring of the three finder patterns: square (default), rounded or circle',
  ),
  finderDotShape: FinderShape.optional().describe(
    'Inner 3×3 of the finder patterns: square (default), rounded or circle',
  ),
  finderColor: HexColor.optional().describe(
    'Colour of the finder patterns (default: the gradient, else foregroundColor); 3:1 against the background',
  ),
  gradient: Gradient.optional(),
  logo: Logo.optional(),
  frame: Frame.optional(),
}
export const DESIGN_KEYS = Object.keys(designShape) as Array<keyof typeof designShape>

/** Whether a style uses any key of DESIGN §13, so it must pass the decode check when saved. */
export function isDesigned(style: object | null | undefined): boolean {
  if (!style) return false
  return DESIGN_KEYS.some((key) => (style as Record<string, unknown>)[key] !== undefined)
}

export interface ColorIssue {
  path: (string | number)[]
  message: string
}

function shownRatio(ratio: number): string {
  // Rounded down: 2.995 shown as "3.00:1" would contradict "needs at least 3:1".
  return (Math.floor(ratio * 100) / 100).toFixed(2)
}

/**
 * The §5 rule for a colour drawn as dark modules: at least `minRatio`:1 against the background and
 * not lighter than it. Undefined when the colour passes.
 */
export function darkOnLightProblem(color: string, background: string, minRatio: number): string | undefined {
  const ratio = contrastRatio(color, background)
  if (ratio < minRatio)
    return `Contrast between ${color} and ${background} is ${shownRatio(ratio)}:1; scanners need at least ${minRatio}:1`
  if (relativeLuminance(color) > relativeLuminance(background))
    return `${color} is lighter than background ${background}; many scanners cannot read inverted codes`
  return undefined
}

/**
 * The contrast rules of DESIGN §13 for the design keys: the finder colour and each gradient stop
 * as dark modules on the background; the frame's text against its band (3:1 either way round).
 */
export function designColorIssues(
  style: {
    finderColor?: string | undefined
    gradient?: Gradient | undefined
    frame?: Frame | undefined
  },
  foreground: string,
  background: string,
  minRatio: number,
): ColorIssue[] {
  const issues: ColorIssue[] = []
  const check = (path: (string | number)[], color: string) => {
    const message = darkOnLightProblem(color, background, minRatio)
    if (message) issues.push({ path, message })
  }
  if (style.finderColor) check(['finderColor'], style.finderColor)
  style.gradient?.colors.forEach((color, i) => {
    check(['gradient', 'colors', i], color)
  })
  if (style.frame) {
    const band = style.frame.color ?? foreground
    const text = style.frame.textColor ?? background
    const ratio = contrastRatio(text, band)
    if (ratio < minRatio)
      issues.push({
        path: ['frame', style.frame.textColor ? 'textColor' : 'color'],
        message: `Contrast between frame text ${text} and frame colour ${band} is ${shownRatio(ratio)}:1; it needs at least ${minRatio}:1`,
      })
  }
  return issues
}
