import { LOGO_PADDING, LOGO_SIZE, type Logo } from '@qrctl/contract'
import type { QrSymbol } from '../symbol.js'
import { Role } from './modules.js'

/**
 * A logo that would clear a module of a finder, timing or alignment pattern, or format
 * information: scanners need those whole, so such a design is unscannable (DESIGN §13).
 */
export class LogoPlacementError extends RangeError {
  constructor(readonly modules: number) {
    super(
      `The logo with its padding would cover ${modules} module(s) of the finder, timing or alignment patterns; make it smaller or reduce its padding`,
    )
    this.name = 'LogoPlacementError'
  }
}

export interface PlacedLogo {
  /** `cleared[row * size + col] = 1` for the modules under the logo and its padding. */
  cleared: Uint8Array
  /** The logo's box, in modules from the symbol's top-left corner (quiet zone excluded). */
  x: number
  y: number
  size: number
}

/**
 * Where a logo goes: a square box of `size` × the symbol's width, centred; the modules under
 * it and `padding` modules around it are cleared. Throws `LogoPlacementError` when that would
 * touch a module scanners rely on.
 */
export function placeLogo(symbol: QrSymbol, roles: Uint8Array, logo: Logo): PlacedLogo {
  const n = symbol.size
  const box = (logo.size ?? LOGO_SIZE.default) * n
  const padding = logo.padding ?? LOGO_PADDING.default
  const start = (n - box) / 2
  const from = Math.max(0, Math.floor(start - padding))
  const to = Math.min(n, Math.ceil(start + box + padding))
  const cleared = new Uint8Array(n * n)
  let touched = 0
  for (let row = from; row < to; row++) {
    for (let col = from; col < to; col++) {
      const i = row * n + col
      if (roles[i] !== Role.Data) touched++
      cleared[i] = 1
    }
  }
  if (touched > 0) throw new LogoPlacementError(touched)
  return { cleared, x: start, y: start, size: box }
}
