import { contrastRatio, MIN_TEXT_CONTRAST, TEMPLATES } from '@qrctl/contract'
import { describe, expect, it } from 'vitest'
import { PALETTES, type Palette, paletteCss, readableOn, resolvePalette } from './showcase-pages.colors.js'

/** Every colour pair the stylesheets put text on. */
function textPairs(p: Palette): [string, string, string][] {
  return [
    ['text on surface', p.text, p.surface],
    ['text on panel', p.text, p.panel],
    ['muted on surface', p.muted, p.surface],
    ['muted on panel', p.muted, p.panel],
    ['muted on bg', p.muted, p.bg],
    ['muted on bg2', p.muted, p.bg2],
    ['label on primary', p.onPrimary, p.primary],
    ['label on secondary', p.onSecondary, p.secondary],
  ]
}

const expectAA = (p: Palette) => {
  for (const [what, fg, bg] of textPairs(p)) {
    expect(contrastRatio(fg, bg), `${what}: ${fg} on ${bg}`).toBeGreaterThanOrEqual(MIN_TEXT_CONTRAST)
  }
}

describe('showcase colours', () => {
  it.each(TEMPLATES)('%s meets WCAG AA (4.5:1) for every text', (template) => {
    expectAA(PALETTES[template])
  })

  it('picks a readable label colour for any button colour', () => {
    for (let v = 0; v < 256; v += 5) {
      for (const color of [
        `#${v.toString(16).padStart(2, '0').repeat(3)}`,
        `#ff${v.toString(16).padStart(2, '0')}00`,
      ]) {
        expect(contrastRatio(readableOn(color), color)).toBeGreaterThanOrEqual(MIN_TEXT_CONTRAST)
      }
    }
  })

  it.each(TEMPLATES)('%s stays AA with any single custom colour laid over it', (template) => {
    const samples = ['#000000', '#ffffff', '#777777', '#ff0000', '#fde047', '#0b3d91', '#123', '#f0f']
    for (const color of samples) {
      expectAA(resolvePalette(template, { background: color }))
      expectAA(resolvePalette(template, { text: color }))
      expectAA(resolvePalette(template, { primary: color, secondary: color }))
    }
  })

  it('keeps the customer pair as given when both text and background are set', () => {
    const p = resolvePalette('modern', { text: '#fafafa', background: '#1e1b4b' })
    expect(p).toMatchObject({ text: '#fafafa', bg: '#1e1b4b', surface: '#1e1b4b' })
    expectAA(p)
  })

  it('writes only hex colours into CSS', () => {
    const css = paletteCss({ ...PALETTES.minimal, primary: 'red;}body{display:none' })
    expect(css).not.toContain('display')
    expect(css).toMatch(/^:root\{(--[a-z0-9-]+:#[0-9a-f]{3,6};?)+\}$/)
  })
})
