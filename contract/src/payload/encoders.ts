import { isHttpUrl } from '../schemas/common.js'

/** The kinds of content a QR code can carry (DESIGN §5). */
export const CONTENT_TYPES = ['url', 'text', 'email', 'phone', 'sms', 'wifi', 'vcard'] as const
export type ContentType = (typeof CONTENT_TYPES)[number]

export type EncodeResult = { ok: true; payload: string } | { ok: false; message: string }

const ok = (payload: string): EncodeResult => ({ ok: true, payload })
const fail = (message: string): EncodeResult => ({ ok: false, message })

function encodeUrl(content: string): EncodeResult {
  return isHttpUrl(content) ? ok(content) : fail('url content must be an absolute http:// or https:// URL')
}

function encodeText(content: string): EncodeResult {
  return content.length > 0 ? ok(content) : fail('text content must not be empty')
}

// Deliberately simple: one @, no spaces, a dot in the domain. Mail clients do the rest.
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:".]{2,}$/

function encodeEmail(content: string): EncodeResult {
  const address = content.trim().replace(/^mailto:/i, '')
  return EMAIL.test(address)
    ? ok(`mailto:${address}`)
    : fail('email content must be an address such as name@example.com')
}

/** `+` and digits; spaces, dots, dashes and brackets are allowed for readability and dropped. */
function normalizePhone(raw: string): string | undefined {
  const compact = raw.trim().replace(/[\s.\-()]/g, '')
  return /^\+?[0-9]{3,20}$/.test(compact) ? compact : undefined
}

function encodePhone(content: string): EncodeResult {
  const number = normalizePhone(content.replace(/^tel:/i, ''))
  return number
    ? ok(`tel:${number}`)
    : fail('phone content must be a number of 3–20 digits, optionally starting with +')
}

function encodeSms(content: string): EncodeResult {
  const colon = content.indexOf(':')
  const rawNumber = colon === -1 ? content : content.slice(0, colon)
  const message = colon === -1 ? '' : content.slice(colon + 1)
  const number = normalizePhone(rawNumber)
  if (!number)
    return fail(
      'sms content must be `number` or `number:message`, the number of 3–20 digits, optionally starting with +',
    )
  return ok(message ? `SMSTO:${number}:${message}` : `SMSTO:${number}`)
}

export const WIFI_ENCRYPTIONS = ['WPA', 'WEP', 'nopass'] as const
export interface WifiNetwork {
  ssid: string
  password?: string
  encryption?: (typeof WIFI_ENCRYPTIONS)[number]
  hidden?: boolean
}

/** Escapes the characters the WIFI: syntax reserves: backslash, semicolon, comma, colon and double quote. */
export function escapeWifi(value: string): string {
  return value.replace(/([\\;,:"])/g, '\\$1')
}

/** Splits `WIFI:T:WPA;S:name;P:secret;;` into its fields, honouring backslash escapes. */
function parseWifiString(content: string): Record<string, string> | string {
  if (!content.startsWith('WIFI:')) return 'wifi content must start with WIFI:'
  const fields: Record<string, string> = {}
  let key = ''
  let value = ''
  let inValue = false
  // True right after a `;` that closed no field: the final `;;` must end with one, so an
  // escaped `\;` before the last `;` does not pass for the terminator.
  let endsEmpty = false
  const body = content.slice(5)
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string
    endsEmpty = ch === ';' && key === '' && !inValue
    if (ch === '\\' && inValue) {
      const next = body[i + 1]
      if (next === undefined) return 'wifi content ends with a lone backslash'
      value += next
      i++
    } else if (ch === ':' && !inValue) {
      inValue = true
    } else if (ch === ';') {
      if (key !== '') {
        if (!inValue) return `wifi field '${key}' has no value`
        fields[key] = value
      }
      key = ''
      value = ''
      inValue = false
    } else if (inValue) {
      value += ch
    } else {
      key += ch
    }
  }
  if (!endsEmpty) return 'wifi content must end with ;;'
  return fields
}

function networkFromWifiString(content: string): WifiNetwork | string {
  const fields = parseWifiString(content)
  if (typeof fields === 'string') return fields
  const unknown = Object.keys(fields).filter((k) => !['T', 'S', 'P', 'H'].includes(k))
  if (unknown.length > 0) return `wifi content has unknown field(s) ${unknown.join(', ')}; use T, S, P and H`
  const encryption = fields.T ?? 'nopass'
  if (!(WIFI_ENCRYPTIONS as readonly string[]).includes(encryption))
    return 'wifi T must be WPA, WEP or nopass'
  if (fields.H !== undefined && fields.H !== 'true' && fields.H !== 'false')
    return 'wifi H must be true or false'
  return {
    ssid: fields.S ?? '',
    password: fields.P,
    encryption: encryption as WifiNetwork['encryption'],
    hidden: fields.H === 'true',
  }
}

function networkFromJson(content: string): WifiNetwork | string {
  let value: unknown
  try {
    value = JSON.parse(content)
  } catch {
    return 'wifi content must be a WIFI: string or a JSON object {"ssid", "password", "encryption", "hidden"}'
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'wifi JSON content must be an object'
  const v = value as Record<string, unknown>
  const unknown = Object.keys(v).filter((k) => !['ssid', 'password', 'encryption', 'hidden'].includes(k))
  if (unknown.length > 0) return `wifi JSON has unknown key(s) ${unknown.join(', ')}`
  if (typeof v.ssid !== 'string') return 'wifi ssid must be a string'
  if (v.password !== undefined && typeof v.password !== 'string') return 'wifi password must be a string'
  if (v.hidden !== undefined && typeof v.hidden !== 'boolean') return 'wifi hidden must be true or false'
  const encryption = v.encryption ?? (v.password ? 'WPA' : 'nopass')
  if (!(WIFI_ENCRYPTIONS as readonly unknown[]).includes(encryption))
    return 'wifi encryption must be WPA, WEP or nopass'
  return {
    ssid: v.ssid,
    password: v.password as string | undefined,
    encryption: encryption as WifiNetwork['encryption'],
    hidden: v.hidden === true,
  }
}

/** The canonical WIFI: string for a network, every value escaped. */
export function formatWifi(network: WifiNetwork): EncodeResult {
  const encryption = network.encryption ?? 'nopass'
  // IEEE 802.11 limits an SSID to 32 octets, not 32 characters.
  const ssidBytes = new TextEncoder().encode(network.ssid).length
  if (ssidBytes === 0 || ssidBytes > 32) return fail('wifi ssid must be 1–32 bytes (UTF-8)')
  if (encryption === 'nopass' && network.password) return fail('wifi password given with encryption nopass')
  if (encryption !== 'nopass' && !network.password)
    return fail(`wifi password is required with encryption ${encryption}`)
  if (
    encryption === 'WPA' &&
    network.password &&
    (network.password.length < 8 || network.password.length > 63)
  )
    return fail('wifi WPA password must be 8–63 characters')
  const parts = [`T:${encryption}`, `S:${escapeWifi(network.ssid)}`]
  if (network.password) parts.push(`P:${escapeWifi(network.password)}`)
  if (network.hidden) parts.push('H:true')
  return ok(`WIFI:${parts.join(';')};;`)
}

function encodeWifi(content: string): EncodeResult {
  const trimmed = content.trim()
  const network = trimmed.startsWith('{') ? networkFromJson(trimmed) : networkFromWifiString(trimmed)
  return typeof network === 'string' ? fail(network) : formatWifi(network)
}

function encodeVcard(content: string): EncodeResult {
  const lines = content
    .trim()
    .split(/\r\n|\r|\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line.length > 0)
  if (lines[0]?.toUpperCase() !== 'BEGIN:VCARD') return fail('vcard content must start with BEGIN:VCARD')
  if (lines.at(-1)?.toUpperCase() !== 'END:VCARD') return fail('vcard content must end with END:VCARD')
  const version = lines
    .find((line) => /^VERSION:/i.test(line))
    ?.slice(8)
    .trim()
  if (version !== '3.0' && version !== '4.0') return fail('vcard VERSION must be 3.0 or 4.0')
  if (!lines.some((line) => /^FN[;:]/i.test(line))) return fail('vcard must have an FN (formatted name) line')
  return ok(lines.join('\r\n'))
}

const ENCODERS: Record<ContentType, (content: string) => EncodeResult> = {
  url: encodeUrl,
  text: encodeText,
  email: encodeEmail,
  phone: encodePhone,
  sms: encodeSms,
  wifi: encodeWifi,
  vcard: encodeVcard,
}

/**
 * The exact string a static code of this content type encodes, or why the content is invalid.
 * @example encodePayload({ contentType: 'email', content: 'hi@example.com' }) // { ok: true, payload: 'mailto:hi@example.com' }
 */
export function encodePayload(input: { contentType: ContentType; content: string }): EncodeResult {
  return ENCODERS[input.contentType](input.content)
}
