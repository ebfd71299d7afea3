/**
 * The browser's side of `#runtime` (see runtime.ts): the page's own `fetch`, no User-Agent of
 * our own (browsers set theirs), and no webhook verification, which needs the webhook's secret
 * and so belongs on a server.
 */
import type { DefaultFetch } from './runtime.js'

export type { DefaultFetch } from './runtime.js'

export const platformUserAgent: string | undefined = undefined

export async function loadDefaultFetch(): Promise<DefaultFetch> {
  return { fetch: (url, init) => globalThis.fetch(url, init), close: async () => {} }
}

function serverOnly(): never {
  throw new TypeError(
    'Qrctl: verifyWebhook runs on your server (Node), never in a browser: it needs the secret',
  )
}

export const createHmac = serverOnly as unknown as typeof import('node:crypto').createHmac
export const timingSafeEqual = serverOnly as unknown as typeof import('node:crypto').timingSafeEqual
