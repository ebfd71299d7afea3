import { createHmac } from 'node:crypto'
import { isbot } from 'isbot'
import UAParser from 'ua-parser-js'

export const DEVICES = ['mobile', 'tablet', 'desktop', 'other'] as const
export type Device = (typeof DEVICES)[number]

export interface UserAgentDetails {
  /** Crawlers, link-preview fetchers (Slack, WhatsApp, iMessage …), scripts and empty agents. */
  isBot: boolean
  device: Device
  browser: string | null
  os: string | null
}

const DESKTOP_OS = new Set([
  'Windows',
  'Mac OS',
  'macOS',
  'Linux',
  'Ubuntu',
  'Debian',
  'Fedora',
  'Chromium OS',
  'Chrome OS',
  'FreeBSD',
  'OpenBSD',
  'NetBSD',
  'Arch',
  'Mint',
])

function deviceOf(type: string | undefined, os: string | undefined): Device {
  if (type === 'mobile' || type === 'wearable') return 'mobile'
  if (type === 'tablet') return 'tablet'
  // ua-parser-js names no device type for desktops; a smart TV, console or car is "other".
  if (type === undefined && os !== undefined && DESKTOP_OS.has(os)) return 'desktop'
  return 'other'
}

function classify(userAgent: string): UserAgentDetails {
  // Phones and camera apps always send an agent; a request without one is a script.
  if (userAgent.trim() === '' || isbot(userAgent))
    return { isBot: true, device: 'other', browser: null, os: null }
  const result = new UAParser(userAgent).getResult()
  return {
    isBot: false,
    device: deviceOf(result.device.type, result.os.name),
    browser: result.browser.name?.slice(0, 100) || null,
    os: result.os.name?.slice(0, 100) || null,
  }
}

const CACHE_MAX = 5_000
const cache = new Map<string, UserAgentDetails>()

/**
 * Bot check and device, browser and OS of a user agent. Parsing costs more than the rest of
 * a redirect, and scanners share a few thousand agents, so results are kept (bounded).
 */
export function userAgentDetails(userAgent: string | undefined): UserAgentDetails {
  const key = userAgent ?? ''
  let details = cache.get(key)
  if (!details) {
    details = classify(key.slice(0, 1024))
    if (cache.size >= CACHE_MAX) cache.clear()
    cache.set(key, details)
  }
  return details
}

/** The referrer's host name, `direct` without one, null when it is not a URL. */
export function referrerHost(referer: string | undefined): string | null {
  if (!referer) return 'direct'
  const host = URL.parse(referer)?.hostname.toLowerCase()
  if (!host) return null
  return host.slice(0, 253)
}

/** HMAC-SHA256(secret, text): a stable name for `text` that never reveals it. */
export function pseudonym(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('base64url')
}

/** HMAC-SHA256(secret, ip + user agent): one visitor id per address and agent, never the address itself. */
export function visitorId(secret: string, ip: string, userAgent: string | undefined): string {
  return pseudonym(secret, `${ip}\n${userAgent ?? ''}`)
}
