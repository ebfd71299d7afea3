import { readFileSync } from 'node:fs'
import { type Command, InvalidArgumentError, Option } from 'commander'

/** The design flags of DESIGN §13, as commander hands them over. */
export interface DesignFlags {
  /** `--style FILE.json`: a whole style object, the other style flags override its keys. */
  style?: Record<string, unknown>
  moduleShape?: string
  finderShape?: string
  finderDotShape?: string
  finderColor?: string
  gradient?: { type: string; colors: [string, string]; rotation?: number }
  /** `--logo FILE`: uploaded as an asset (create, update) or drawn as is (offline render, PNG only). */
  logo?: string
  logoAsset?: string
  logoSize?: number
  logoPadding?: number
  frameText?: string
  frameStyle?: string
  framePosition?: string
  frameColor?: string
  frameTextColor?: string
}

/** Which flag sets each style key, for error messages that name the flag. */
export const DESIGN_FLAG_NAMES: Record<string, string> = {
  'style.moduleShape': '--module-shape',
  'style.finderShape': '--finder-shape',
  'style.finderDotShape': '--finder-dot-shape',
  'style.finderColor': '--finder-color',
  'style.gradient': '--gradient',
  'style.gradient.colors.0': '--gradient',
  'style.gradient.colors.1': '--gradient',
  'style.logo': '--logo',
  'style.logo.assetId': '--logo-asset',
  'style.logo.size': '--logo-size',
  'style.logo.padding': '--logo-padding',
  'style.frame.text': '--frame-text',
  'style.frame.style': '--frame-style',
  'style.frame.position': '--frame-position',
  'style.frame.color': '--frame-color',
  'style.frame.textColor': '--frame-text-color',
}

/** A commander parser for `--style FILE.json`: the file's one JSON object. */
export function styleFile(path: string): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new InvalidArgumentError(`Cannot read a JSON style from ${path}: ${(error as Error).message}`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InvalidArgumentError(`${path} must hold one JSON object, the style`)
  return parsed as Record<string, unknown>
}

/** `linear:#1A237E,#6A1B9A:45` or `radial:#000,#0D47A1`. */
function gradient(value: string): NonNullable<DesignFlags['gradient']> {
  const match = /^(linear|radial):(#[0-9a-fA-F]{3,6}),(#[0-9a-fA-F]{3,6})(?::(\d+(?:\.\d+)?))?$/.exec(
    value.trim(),
  )
  if (!match)
    throw new InvalidArgumentError('Expected linear:#RRGGBB,#RRGGBB[:DEGREES] or radial:#RRGGBB,#RRGGBB.')
  const [, type, from, to, rotation] = match
  return {
    type: type as string,
    colors: [from as string, to as string],
    ...(rotation && { rotation: Number(rotation) }),
  }
}

function fraction(value: string): number {
  const n = Number(value)
  if (!Number.isFinite(n)) throw new InvalidArgumentError('Not a number.')
  return n
}

/** The design flags, on `create`, `update` and `render`. */
export function addDesignOptions(command: Command, { canUpload }: { canUpload: boolean }): Command {
  const shapes = ['square', 'rounded', 'circle']
  return command
    .option(
      '--style <file.json>',
      'a style as JSON (every key of the API’s style); other flags override it',
      styleFile,
    )
    .addOption(
      new Option('--module-shape <shape>', 'data modules: square, rounded or dot').choices([
        'square',
        'rounded',
        'dot',
      ]),
    )
    .addOption(new Option('--finder-shape <shape>', 'outer ring of the finder patterns').choices(shapes))
    .addOption(new Option('--finder-dot-shape <shape>', 'inner 3×3 of the finder patterns').choices(shapes))
    .option('--finder-color <color>', 'colour of the finder patterns, #RGB or #RRGGBB')
    .option(
      '--gradient <spec>',
      'paint the modules with a gradient: linear:#FROM,#TO[:DEGREES] or radial:#FROM,#TO',
      gradient,
    )
    .option(
      '--logo <file>',
      canUpload
        ? 'a logo image (PNG, JPEG, WebP or SVG), uploaded as an asset and drawn in the middle'
        : 'a PNG logo drawn in the middle',
    )
    .option('--logo-asset <id>', 'an uploaded asset to use as the logo')
    .option(
      '--logo-size <fraction>',
      "logo width as a fraction of the symbol's, 0.1–0.3 (default 0.2)",
      fraction,
    )
    .option('--logo-padding <modules>', 'modules cleared around the logo, 0–4 (default 1)', fraction)
    .option('--frame-text <text>', 'add a frame with this call to action, 1–30 characters')
    .addOption(
      new Option('--frame-style <style>', 'banner (default) or box (with a border)').choices([
        'banner',
        'box',
      ]),
    )
    .addOption(
      new Option('--frame-position <position>', 'bottom (default) or top').choices(['bottom', 'top']),
    )
    .option('--frame-color <color>', 'frame colour (default: the foreground)')
    .option('--frame-text-color <color>', 'frame text colour (default: the background)')
}

/**
 * The design keys the flags set, over `--style`'s object. `logoAssetId` stands in for the asset
 * `--logo FILE` became (uploaded, or a placeholder for an offline render).
 */
export function designFromFlags(flags: DesignFlags, logoAssetId?: string): Record<string, unknown> {
  const base = { ...flags.style }
  const set = (key: string, value: unknown) => {
    if (value !== undefined) base[key] = value
  }
  set('moduleShape', flags.moduleShape)
  set('finderShape', flags.finderShape)
  set('finderDotShape', flags.finderDotShape)
  set('finderColor', flags.finderColor)
  set('gradient', flags.gradient)
  const assetId = logoAssetId ?? flags.logoAsset
  if (assetId || flags.logoSize !== undefined || flags.logoPadding !== undefined) {
    const logo = { ...(base.logo as Record<string, unknown> | undefined) }
    if (assetId) logo.assetId = assetId
    if (flags.logoSize !== undefined) logo.size = flags.logoSize
    if (flags.logoPadding !== undefined) logo.padding = flags.logoPadding
    base.logo = logo
  }
  const frameFlags = [
    flags.frameText,
    flags.frameStyle,
    flags.framePosition,
    flags.frameColor,
    flags.frameTextColor,
  ]
  if (frameFlags.some((value) => value !== undefined)) {
    const frame: Record<string, unknown> = {
      style: 'banner',
      ...(base.frame as Record<string, unknown> | undefined),
    }
    if (flags.frameText !== undefined) frame.text = flags.frameText
    if (flags.frameStyle !== undefined) frame.style = flags.frameStyle
    if (flags.framePosition !== undefined) frame.position = flags.framePosition
    if (flags.frameColor !== undefined) frame.color = flags.frameColor
    if (flags.frameTextColor !== undefined) frame.textColor = flags.frameTextColor
    base.frame = frame
  }
  return base
}

/** The upload type of a logo file, from its name. */
export function logoContentType(file: string): 'image/png' | 'image/jpeg' | 'image/webp' | 'image/svg+xml' {
  const ext = file.toLowerCase().split('.').at(-1)
  if (ext === 'jpg' || ext === 'jpeg') return 'image/jpeg'
  if (ext === 'webp') return 'image/webp'
  if (ext === 'svg') return 'image/svg+xml'
  return 'image/png'
}

/** The v1 style flags over the design ones; undefined when no flag set anything. */
export function combineStyle(
  v1: Record<string, unknown> | undefined,
  design: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const style = { ...design, ...v1 }
  return Object.keys(style).length === 0 ? undefined : style
}
