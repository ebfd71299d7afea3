/**
 * The API's path prefix, spelled here so this module loads nothing (the CLI reads settings
 * with it before anything else is loaded); `base-url.test.ts` checks it equals the contract's
 * `API_PREFIX`.
 */
const API_PREFIX = '/api/v1'

/** The server root when none is given: a server on this machine. */
export const DEFAULT_BASE_URL = 'http://localhost:3000'

/** A base URL that cannot be a server root. */
export class BaseUrlError extends TypeError {
  override name = 'BaseUrlError'
}

/**
 * The one base-URL rule of the SDK and the CLI: an http(s) URL without query or fragment, the
 * server root. Trailing slashes and a trailing `/api/v1` are dropped: people paste the API's
 * URL, and every path carries the prefix already.
 * @example normalizeBaseUrl('https://qr.example.com/api/v1/') // 'https://qr.example.com'
 */
export function normalizeBaseUrl(value: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new BaseUrlError(`Not a URL: '${value}'`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new BaseUrlError(`The base URL must be http:// or https://, got '${value}'`)
  if (url.search || url.hash)
    throw new BaseUrlError(`The base URL must not have a query or fragment: '${value}'`)
  const root = `${url.origin}${url.pathname}`.replace(/\/+$/, '')
  return root.endsWith(API_PREFIX) ? root.slice(0, -API_PREFIX.length) : root
}
