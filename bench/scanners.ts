/**
 * The traffic every redirect benchmark sends, and the one way they measure it: phones and
 * desktops from 50,000 addresses across the IPv4 space, each scanning a few times in a run,
 * with a language and, on every third scan, a referrer.
 */
import { type LoadResult, load } from './redirect-support.js'

const AGENTS = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:121.0) Gecko/20100101 Firefox/121.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 309.0.0.28.109',
]
const LANGUAGES = ['en-US,en;q=0.9', 'de-DE,de;q=0.9,en;q=0.5', 'fr;q=0.8, en;q=0.7', 'pt-BR']

/** 50,000 distinct IPv4 addresses spread over the whole space (a few private: no place). */
const ADDRESSES = Array.from({ length: 50_000 }, (_, i) => {
  const n = 0x01000000 + i * 0x10f0f
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`
})

let n = 0
/** The headers of the next scan. */
export function scannerHeaders(): Record<string, string> {
  n++
  const headers: Record<string, string> = {
    'user-agent': AGENTS[n % AGENTS.length] as string,
    'accept-language': LANGUAGES[n % LANGUAGES.length] as string,
    'x-forwarded-for': ADDRESSES[(n * 7919) % ADDRESSES.length] as string,
  }
  if (n % 3 === 0) headers.referer = 'https://www.instagram.com/'
  return headers
}

const ANY_DEVICE = { type: 'device', values: ['mobile', 'tablet', 'desktop'] }
/** Conditions that do not hold for the traffic above. */
const MISSES = [
  { type: 'country', values: ['JP', 'KR', 'CN'] },
  { type: 'language', values: ['ja', 'ko'] },
  { type: 'os', values: ['chromeos'] },
  { type: 'query', key: 'campaign', value: 'never' },
  { type: 'schedule', timezone: 'Pacific/Kiritimati', days: ['mon'], from: '03:00', to: '03:01' },
  { type: 'after', value: '2999-01-01T00:00:00Z' },
  { type: 'before', value: '2000-01-01T00:00:00Z' },
]
/** The most a code may carry (DESIGN §14): 19 rules whose second condition fails, then one that holds. */
export const TWENTY_RULES = [
  ...Array.from({ length: 19 }, (_, i) => ({
    targetUrl: `https://example.com/miss-${i}`,
    conditions: [ANY_DEVICE, MISSES[i % MISSES.length]],
  })),
  {
    targetUrl: 'https://example.com/hit',
    conditions: [ANY_DEVICE, { type: 'before', value: '2999-01-01T00:00:00Z' }],
  },
]
export const TWENTY_RULES_TARGET = 'https://example.com/hit'

export interface Measured extends LoadResult {
  /** Responses of warm-up and measurement. */
  answered: number
  /** Server CPU time per measured response, µs: steadier than req/s on a shared machine. */
  cpuPerRequestUs: number
}

/** A warm-up run, then the measured one, with `connections` scanners. */
export async function measureRedirects(
  url: string,
  server: { cpuMs(): number },
  options: { connections: number; warmupSeconds: number; seconds: number },
): Promise<Measured> {
  const run = (durationSeconds: number) =>
    load({ url, connections: options.connections, durationSeconds, headersPerRequest: scannerHeaders })
  const warm = await run(options.warmupSeconds)
  const cpuBefore = server.cpuMs()
  const result = await run(options.seconds)
  const cpuPerRequestUs = ((server.cpuMs() - cpuBefore) * 1000) / result.completed
  return { ...result, answered: warm.completed + result.completed, cpuPerRequestUs }
}

/** One line of a measurement, for the progress output. */
export function describeRun(name: string, r: Measured): string {
  return `${name.padEnd(9)} ${Math.round(r.requestsPerSecond).toString().padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  CPU ${r.cpuPerRequestUs.toFixed(1)} µs/req  (${r.completed} responses, ${r.errors} errors)`
}
