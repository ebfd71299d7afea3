import type { RuleOs } from '@qrctl/contract'
import type { Device } from '../scans/scan-details.js'

/**
 * What the rules of DESIGN §14 ask about one scan. The fast path gathers each fact at most
 * once and only when a rule asks (a GeoIP lookup for a code without country rules is waste).
 */
export interface ScanFacts {
  now: Date
  device(): Device
  os(): RuleOs | null
  /** ISO 3166-1 alpha-2, upper case; null when unknown. */
  country(): string | null
  /** The most preferred Accept-Language tag, as sent; null without one. */
  language(): string | null
  /** The scan URL's own query. */
  query(): URLSearchParams
}

const OS_BY_NAME: Record<string, RuleOs> = {
  iOS: 'ios',
  Android: 'android',
  Windows: 'windows',
  'Mac OS': 'macos',
  macOS: 'macos',
  'Chromium OS': 'chromeos',
  'Chrome OS': 'chromeos',
  Linux: 'linux',
  Ubuntu: 'linux',
  Debian: 'linux',
  Fedora: 'linux',
  Arch: 'linux',
  Mint: 'linux',
  'Red Hat': 'linux',
  CentOS: 'linux',
  SUSE: 'linux',
  Gentoo: 'linux',
  Kubuntu: 'linux',
  Xubuntu: 'linux',
  Mandriva: 'linux',
  Slackware: 'linux',
}

/** An `os` condition's value for ua-parser-js's OS name (scan-details.ts); null for others. */
export function ruleOsOf(osName: string | null): RuleOs | null {
  return (osName && OS_BY_NAME[osName]) || null
}

const Q = /^\s*q\s*=\s*([0-9.]+)\s*$/i

/**
 * The entry of an Accept-Language header with the highest q (the first on a tie); `*` and
 * `q=0` entries are ignored (DESIGN §14).
 * @example preferredLanguage('fr;q=0.5, de-AT, en;q=0.9') // 'de-AT'
 */
export function preferredLanguage(header: string | undefined): string | null {
  if (!header) return null
  let best: string | null = null
  let bestQ = 0
  for (const entry of header.slice(0, 2048).split(',')) {
    const [rawTag = '', ...params] = entry.split(';')
    const tag = rawTag.trim()
    if (tag === '' || tag === '*') continue
    let q = 1
    for (const param of params) {
      const match = Q.exec(param)
      if (match) q = Number(match[1])
    }
    if (!Number.isFinite(q) || q <= 0) continue
    if (q > bestQ) {
      best = tag
      bestQ = q
    }
  }
  return best
}
