/**
 * `@qrctl/render`: payload + style → PNG, SVG, PDF or terminal text. `qrcode` builds the
 * symbol; these modules only draw it. Used by the server's image routes and the CLI's offline render.
 */
export {
  createRenderCache,
  RENDER_CONTENT_TYPES,
  RENDERER_VERSION,
  type RenderCache,
  type RenderCacheOptions,
  type RenderCacheStats,
  type RenderedImage,
  type RenderFormat,
  type RenderRequestOptions,
  renderCached,
  renderEtag,
} from './cache.js'
export { type Creatable, type CreatableOptions, checkCreatable, styleDrawingIssues } from './creatable.js'
export { FRAME_FONT_FILE, undrawableCharacters } from './design/font.js'
export { LogoPlacementError } from './design/logo.js'
export { renderDesignPixels } from './design/render.js'
export { PDF_MAX_SIDE_PT, PDF_MODULE_PT, renderPdf } from './pdf.js'
export { PNG_SIZE, type PngOptions, PngSizeError, renderPng } from './png.js'
export { type NormalizedStyle, normalizeStyle, type StyleInput } from './style.js'
export { renderSvg, type SvgOptions } from './svg.js'
export {
  CapacityError,
  type CapacityResult,
  checkCapacity,
  createSymbol,
  forEachDarkRun,
  maxBytesAt,
  type QrSymbol,
} from './symbol.js'
export { renderTerminal, type TerminalOptions } from './terminal.js'
