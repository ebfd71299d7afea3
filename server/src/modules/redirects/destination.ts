import { UTM_KEYS, type Utm } from '@qrctl/contract'

// Header values must be visible ASCII; URL serialisation percent-encodes the rest.
const NOT_HEADER_SAFE = /[^\x21-\x7e]/

/** A stored destination as a Location header value, or undefined when it cannot be one. */
export function headerSafe(url: string): string | undefined {
  return NOT_HEADER_SAFE.test(url) ? URL.parse(url)?.href : url
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

function encode(value: string): string {
  // A lone surrogate cannot be percent-encoded (encodeURIComponent throws); it becomes U+FFFD.
  return encodeURIComponent(value.replace(LONE_SURROGATE, '\uFFFD'))
}

/**
 * DESIGN §14: the code's `utm` as `utm_*` parameters, then (with `forwardQuery`) the scan's own
 * query parameters, added to a destination that does not have them already: the destination's
 * own parameters win, and the code's UTM values beat a visitor's. Everything added is
 * percent-encoded; the destination's own query and fragment are kept as they are.
 * @example withParameters('https://a.example/p#top', { source: 'flyer' }, null) // 'https://a.example/p?utm_source=flyer#top'
 */
export function withParameters(
  target: string,
  utm: Utm | null,
  forwarded: URLSearchParams | null,
): string | undefined {
  const url = URL.parse(target)
  if (!url) return undefined
  const taken = new Set(url.searchParams.keys())
  const added: string[] = []
  if (utm) {
    for (const key of UTM_KEYS) {
      const value = utm[key]
      const name = `utm_${key}`
      if (value === undefined || taken.has(name)) continue
      added.push(`${name}=${encode(value)}`)
      taken.add(name)
    }
  }
  if (forwarded) {
    for (const [key, value] of forwarded) {
      if (!taken.has(key)) added.push(`${encode(key)}=${encode(value)}`)
    }
  }
  if (added.length === 0) return headerSafe(target)
  const own = url.search.slice(1)
  url.search = own ? `${own}&${added.join('&')}` : added.join('&')
  return url.href
}
