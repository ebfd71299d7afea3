/**
 * What the SDK needs from Node and nowhere else. Browser bundles get `runtime.browser.ts`
 * instead, through the `#runtime` import's `browser` condition (package.json `imports`), so
 * they never reference undici or `node:` modules.
 */
import type { FetchFn } from './options.js'

export { createHmac, timingSafeEqual } from 'node:crypto'

/** The SDK's own `fetch` for clients not given one, with what closes its connections. */
export interface DefaultFetch {
  fetch: FetchFn
  close(): Promise<void>
}

/** Sent after `qrctl-sdk/VERSION` in the User-Agent header. */
export const platformUserAgent: string | undefined = `node/${process.version}`

/**
 * undici with a keep-alive agent. undici is about two thirds of the SDK's import time, and a
 * client given its own `fetch` never needs it, so it is loaded with the first request rather
 * than with the SDK.
 */
export async function loadDefaultFetch(): Promise<DefaultFetch> {
  const { Agent, fetch } = await import('undici')
  const agent = new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 })
  return {
    fetch: (url, init) =>
      fetch(url, {
        ...(init as Parameters<typeof fetch>[1]),
        dispatcher: agent,
      }) as unknown as Promise<Response>,
    close: () => agent.close(),
  }
}
