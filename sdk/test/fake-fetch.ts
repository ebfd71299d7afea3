import type { FetchFn } from '../src/options.js'

export const API_KEY = `qrk_${'a'.repeat(40)}`

export interface RecordedCall {
  url: string
  method: string
  headers: Record<string, string>
  body: string | undefined
  signal: AbortSignal | undefined
}

type Step = Response | Error | ((call: RecordedCall) => Response | Promise<Response>)

/** A `fetch` that answers from a script, one step per call, and records every call. */
export function fakeFetch(...steps: Step[]): FetchFn & { calls: RecordedCall[] } {
  const calls: RecordedCall[] = []
  const fn = async (url: string, init: RequestInit) => {
    const call: RecordedCall = {
      url,
      method: init.method ?? 'GET',
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      body: typeof init.body === 'string' ? init.body : undefined,
      signal: init.signal ?? undefined,
    }
    calls.push(call)
    const step = steps.shift()
    if (step === undefined) throw new Error(`fakeFetch: no answer scripted for call ${calls.length} (${url})`)
    if (step instanceof Error) throw step
    if (typeof step === 'function') return step(call)
    return step
  }
  return Object.assign(fn, { calls })
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  })
}

export function apiError(
  status: number,
  error: string,
  details: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  return json(status, { error, details: { message: `${error} happened`, ...details } }, headers)
}

/** What undici throws when the connection drops. */
export function networkError(code = 'ECONNRESET'): TypeError {
  return new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code }) })
}

export const ID = '3f1c2b9e-8d4a-4c7e-9b2a-1d5e6f708192'

/** A QrCode as the API answers it (only what the tests read needs to be real). */
export function qrCode(overrides: Record<string, unknown> = {}) {
  return {
    id: ID,
    name: 'Menu',
    type: 'dynamic',
    contentType: 'url',
    content: 'https://example.com/menu',
    targetUrl: 'https://example.com/menu',
    shortCode: 'Ab3dE5f',
    shortUrl: 'http://localhost:3000/r/Ab3dE5f',
    style: null,
    isActive: true,
    totalScans: 0,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    assets: { png: 'http://x/a.png', svg: 'http://x/a.svg', pdf: 'http://x/a.pdf' },
    ...overrides,
  }
}
