/**
 * The SDK (with zod and ts-rest; it loads undici with its first request) and the renderer
 * (qrcode; pdfkit only when a PDF is drawn) take tens of ms to load. They are loaded on first
 * use, after the spinner is up, so `--help`, `config` and usage errors stay instant and network commands show life at
 * once.
 */
export function loadSdk() {
  return import('@qrctl/sdk')
}

export function loadContract() {
  return import('@qrctl/contract')
}

export function loadRender() {
  return import('@qrctl/render')
}
