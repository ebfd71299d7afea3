import type { NormalizedStyle } from '../style.js'
import { createSymbol } from '../symbol.js'
import { type Pixels, sceneToPixels, sceneToPng, sceneToSvg } from './draw.js'
import { placeLogo } from './logo.js'
import { moduleRoles } from './modules.js'
import { buildScene, type Scene } from './scene.js'

/**
 * The scene of a styled code: its symbol at the style's level, every §13 key drawn. `logo` is
 * the PNG of `style.logo`'s asset; without it the logo's modules are still cleared, so the
 * symbol is the same with or without the picture.
 */
export function designScene(payload: string, style: NormalizedStyle, logo?: Uint8Array): Scene {
  const symbol = createSymbol(payload, style.errorCorrectionLevel)
  if (!style.logo) return buildScene({ symbol, style })
  const placed = placeLogo(symbol, moduleRoles(symbol), style.logo)
  return buildScene({
    symbol,
    style,
    cleared: placed.cleared,
    ...(logo && { logo: { png: logo, x: placed.x, y: placed.y, size: placed.size } }),
  })
}

export function renderDesignSvg(
  payload: string,
  style: NormalizedStyle,
  width?: number,
  logo?: Uint8Array,
): string {
  return sceneToSvg(designScene(payload, style, logo), width)
}

/** A styled PNG `width` px wide; a frame makes it taller than wide. */
export function renderDesignPng(
  payload: string,
  style: NormalizedStyle,
  width: number,
  logo?: Uint8Array,
): Uint8Array {
  return sceneToPng(designScene(payload, style, logo), width)
}

/** The pixels of `renderDesignPng`, without the PNG encoding: what the decode check reads. */
export function renderDesignPixels(
  payload: string,
  style: NormalizedStyle,
  width: number,
  logo?: Uint8Array,
): { scene: Scene; pixels: Pixels } {
  const scene = designScene(payload, style, logo)
  return { scene, pixels: sceneToPixels(scene, width) }
}
