import type { NormalizedStyle } from '../style.js'
import { createSymbol } from '../symbol.js'
import { type Pixels, sceneToPixels, sceneToPng, sceneToSvg } from './draw.js'
import { buildScene, type Scene } from './scene.js'

/** The scene of a styled code: its symbol at the style's level, every §13 key drawn. */
export function designScene(payload: string, style: NormalizedStyle): Scene {
  const symbol = createSymbol(payload, style.errorCorrectionLevel)
  return buildScene({ symbol, style })
}

export function renderDesignSvg(payload: string, style: NormalizedStyle, width?: number): string {
  return sceneToSvg(designScene(payload, style), width)
}

/** A styled PNG `width` px wide; a frame makes it taller than wide. */
export function renderDesignPng(payload: string, style: NormalizedStyle, width: number): Uint8Array {
  return sceneToPng(designScene(payload, style), width)
}

/** The pixels of `renderDesignPng`, without the PNG encoding: what the decode check reads. */
export function renderDesignPixels(
  payload: string,
  style: NormalizedStyle,
  width: number,
): { scene: Scene; pixels: Pixels } {
  const scene = designScene(payload, style)
  return { scene, pixels: sceneToPixels(scene, width) }
}
