import { z } from 'zod'

/** `#RGB` or `#RRGGBB`. */
export const HexColor = z
  .string()
  .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'Expected a colour as #RGB or #RRGGBB')
  .describe('Colour as #RGB or #RRGGBB')

/** Whitespace or a control character: the URL parser silently drops some of them, a Location header cannot carry them. */
function hasSpaceOrControl(value: string): boolean {
  return [...value].some((ch) => {
    const code = ch.codePointAt(0) ?? 0
    return /\s/.test(ch) || code < 0x20 || (code >= 0x7f && code <= 0x9f)
  })
}

/**
 * An absolute URL spelled with `http://` or `https://` and a host. The WHATWG parser alone
 * is too lenient: it accepts `http:example.com` and strips tabs, newlines and outer spaces
 * that would then be stored, encoded and sent in a redirect as given.
 */
export function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value) || hasSpaceOrControl(value)) return false
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0
  } catch {
    return false
  }
}

const CONTACT_LINK = [
  /^tel:\+?[0-9][0-9().-]*$/i,
  /^sms:\+?[0-9][0-9().-]*(?:\?body=[^\s]*)?$/i,
  /^mailto:[^\s@?]+@[^\s@?]+(?:\?[^\s]*)?$/i,
]

/**
 * A link a call-to-action button may carry (DESIGN §9): an absolute http(s) URL, or a
 * `tel:`, `mailto:` or `sms:` link, which phones open in their dialler, mail or messages app.
 */
export function isCtaUrl(value: string): boolean {
  if (isHttpUrl(value)) return true
  return !hasSpaceOrControl(value) && CONTACT_LINK.some((pattern) => pattern.test(value))
}

/** An absolute http(s) URL of at most `max` characters. */
export function httpUrl(max = 2048) {
  return z
    .string()
    .max(max, `Must be at most ${max} characters`)
    .refine(isHttpUrl, 'Must be an absolute http:// or https:// URL')
}

export const Uuid = z.string().uuid('Must be a UUID')

/** Query flags arrive as strings; `true`, `1`, `false`, `0` and real booleans are accepted. */
export const QueryBoolean = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0'])])
  .transform((value) => value === true || value === 'true' || value === '1')

/** Deeper pages than this are refused rather than scanned; filter instead. */
export const MAX_OFFSET = 1_000_000

export function pageQuery() {
  return {
    limit: z.coerce
      .number()
      .int('Must be a whole number')
      .min(1, 'Must be at least 1')
      .max(100, 'Must be at most 100')
      .default(50)
      .describe('Page size, 1–100'),
    offset: z.coerce
      .number()
      .int('Must be a whole number')
      .min(0, 'Must be 0 or more')
      .max(MAX_OFFSET, `Must be at most ${MAX_OFFSET}`)
      .default(0)
      .describe('How many items to skip'),
  }
}

function toSnakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)
}

function unknownKeyMessage(key: string, known: readonly string[], hints: Record<string, string>): string {
  // An own-property lookup: `constructor`, `__proto__` or `toString` are field names like any
  // other, not the plain object's inherited members.
  const hint = Object.hasOwn(hints, key) ? hints[key] : undefined
  if (hint) return hint
  const meant = known.find((name) => toSnakeCase(name) === key || name.toLowerCase() === key.toLowerCase())
  if (meant) return `Unknown field '${key}': did you mean '${meant}'?`
  return `Unknown field '${key}'`
}

/**
 * A strict object: unknown keys are rejected, and a snake_case spelling of a field
 * (`target_url`) names the camelCase one that was meant (`targetUrl`). `hints` gives a
 * custom message for a key that is known to be refused on purpose.
 */
export function strictObject<T extends z.ZodRawShape>(shape: T, hints: Record<string, string> = {}) {
  const known = Object.keys(shape)
  return z
    .object(shape, {
      errorMap: (issue, ctx) => {
        if (issue.code === 'unrecognized_keys') {
          return { message: issue.keys.map((key) => unknownKeyMessage(key, known, hints)).join('; ') }
        }
        return { message: ctx.defaultError }
      },
    })
    .strict()
}

/**
 * Whether the platform's `Intl` knows this IANA time zone (DESIGN §14 schedules, §16 analytics):
 * the runtime's own tz database, no hand-written tables.
 */
export function isTimeZone(value: string): boolean {
  if (value.length === 0 || value.length > 64) return false
  try {
    new Intl.DateTimeFormat('en', { timeZone: value })
    return true
  } catch {
    return false
  }
}
