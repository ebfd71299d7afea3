import { type CustomColors, contrastRatio, MIN_TEXT_CONTRAST, type Template } from '@qrctl/contract'

/**
 * A template's colours. Text sits on `surface`; `bg`/`bg2` are the page behind it (a gradient
 * when they differ); the footer's muted text sits on `bg`. Every pair that carries text meets
 * WCAG AA (4.5:1), which a test checks.
 */
export interface Palette {
  bg: string
  bg2: string
  surface: string
  /** Behind the QR code's block, on the surface. */
  panel: string
  text: string
  muted: string
  primary: string
  onPrimary: string
  secondary: string
  onSecondary: string
}

export const PALETTES: Record<Template, Palette> = {
  minimal: {
    bg: '#ffffff',
    bg2: '#ffffff',
    surface: '#ffffff',
    panel: '#f6f8fa',
    text: '#1f2328',
    muted: '#59636e',
    primary: '#1f2328',
    onPrimary: '#ffffff',
    secondary: '#f1f3f5',
    onSecondary: '#1f2328',
  },
  modern: {
    bg: '#e0e7ff',
    bg2: '#fae8ff',
    surface: '#ffffff',
    panel: '#f5f3ff',
    text: '#1e1b4b',
    muted: '#4b4f6b',
    primary: '#4f46e5',
    onPrimary: '#ffffff',
    secondary: '#eef2ff',
    onSecondary: '#3730a3',
  },
  bold: {
    bg: '#fde047',
    bg2: '#fde047',
    surface: '#fde047',
    panel: '#fde047',
    text: '#111111',
    muted: '#3d3a1a',
    primary: '#111111',
    onPrimary: '#fde047',
    secondary: '#ffffff',
    onSecondary: '#111111',
  },
  professional: {
    bg: '#f3f5f8',
    bg2: '#f3f5f8',
    surface: '#ffffff',
    panel: '#f3f5f8',
    text: '#1b263b',
    muted: '#4a5568',
    primary: '#0b3d91',
    onPrimary: '#ffffff',
    secondary: '#e6edf7',
    onSecondary: '#0b3d91',
  },
  dark: {
    bg: '#0b0d12',
    bg2: '#111827',
    surface: '#161b26',
    panel: '#1d2330',
    text: '#e8ebf2',
    muted: '#a4adbd',
    primary: '#34d399',
    onPrimary: '#06261a',
    secondary: '#232a38',
    onSecondary: '#e8ebf2',
  },
}

/** White or near-black, whichever reads on `color`; one of the two always reaches 4.5:1. */
export function readableOn(color: string): string {
  for (const candidate of ['#ffffff', '#111111', '#000000']) {
    if (contrastRatio(candidate, color) >= MIN_TEXT_CONTRAST) return candidate
  }
  return '#000000'
}

const reads = (text: string, on: string) => contrastRatio(text, on) >= MIN_TEXT_CONTRAST

/**
 * The template's palette with the customer's colours laid over it. Colours the customer did
 * not give are chosen so every text still meets AA: a custom background gets the template's
 * text colour when it reads, else white or near-black; buttons get readable label colours.
 */
export function resolvePalette(template: Template, custom: CustomColors | null): Palette {
  const base = PALETTES[template]
  if (!custom) return base
  const palette = { ...base }
  if (custom.background) {
    palette.bg = palette.bg2 = palette.surface = palette.panel = custom.background
    palette.text =
      custom.text ?? (reads(base.text, custom.background) ? base.text : readableOn(custom.background))
  } else if (custom.text) {
    palette.text = custom.text
    if (!reads(custom.text, base.surface) || !reads(custom.text, base.bg)) {
      palette.bg = palette.bg2 = palette.surface = palette.panel = readableOn(custom.text)
    }
  }
  if (custom.background || custom.text) {
    if (!reads(palette.text, palette.panel)) palette.panel = palette.surface
    const mutedReads = [palette.surface, palette.bg, palette.panel].every((on) => reads(base.muted, on))
    palette.muted = mutedReads ? base.muted : palette.text
  }
  if (custom.primary) {
    palette.primary = custom.primary
    palette.onPrimary = readableOn(custom.primary)
  }
  if (custom.secondary) {
    palette.secondary = custom.secondary
    palette.onSecondary = readableOn(custom.secondary)
  }
  return palette
}

const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/

/**
 * The palette as CSS custom properties, for the page's nonce'd `<style>`. Only hex colours
 * pass (the contract validated them already; this is the last line before CSS).
 */
export function paletteCss(palette: Palette): string {
  const entries: [string, string][] = [
    ['bg', palette.bg],
    ['bg-2', palette.bg2],
    ['surface', palette.surface],
    ['panel', palette.panel],
    ['text', palette.text],
    ['muted', palette.muted],
    ['primary', palette.primary],
    ['on-primary', palette.onPrimary],
    ['secondary', palette.secondary],
    ['on-secondary', palette.onSecondary],
  ]
  return `:root{${entries
    .filter(([, value]) => HEX.test(value))
    .map(([name, value]) => `--${name}:${value}`)
    .join(';')}}`
}
