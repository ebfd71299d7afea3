import { normalizeStyle, type StyleInput } from './style.js'
import { createSymbol } from './symbol.js'

export interface TerminalOptions {
  /**
   * Draw the light modules (and the quiet zone) as ink instead of the dark ones. Use it on a
   * terminal with a dark background, where ink is light: the code then shows the right way round.
   */
  invert?: boolean
}

// Index: (top is ink ? 2 : 0) + (bottom is ink ? 1 : 0)
const HALF_BLOCKS = [' ', '▄', '▀', '█'] as const

/**
 * The code as text for a terminal: each character holds two module rows with Unicode half blocks
 * (`▀`, `▄`, `█`, space), quiet zone included; lines end with `\n`. Colours in the style are
 * ignored (the terminal's own are used); its level and margin apply.
 * @example process.stdout.write(renderTerminal('https://example.com', null, { invert: true }))
 */
export function renderTerminal(payload: string, style?: StyleInput, options: TerminalOptions = {}): string {
  const s = normalizeStyle(style)
  const symbol = createSymbol(payload, s.errorCorrectionLevel)
  const n = symbol.size + 2 * s.margin
  const ink = (row: number, col: number): boolean => {
    const r = row - s.margin
    const c = col - s.margin
    // Past the last row (odd n) counts as quiet zone.
    const dark =
      r >= 0 && c >= 0 && r < symbol.size && c < symbol.size && symbol.modules[r * symbol.size + c] === 1
    const inside = row < n
    return inside && dark !== Boolean(options.invert)
  }
  let out = ''
  for (let row = 0; row < n; row += 2) {
    for (let col = 0; col < n; col++)
      out += HALF_BLOCKS[(ink(row, col) ? 2 : 0) + (ink(row + 1, col) ? 1 : 0)]
    out += '\n'
  }
  return out
}
