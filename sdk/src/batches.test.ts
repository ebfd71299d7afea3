import { describe, expect, it } from 'vitest'
import { API_KEY, apiError, fakeFetch, json, qrCode } from '../test/fake-fetch.js'
import { type BatchAnswer, type BatchResult, Qrctl } from './index.js'

const input = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ name: `c${i}`, contentType: 'text' as const, content: 'x' }))
const created = (n: number, headers: Record<string, string> = {}) =>
  json(201, { data: { created: n, errors: [], items: Array.from({ length: n }, () => qrCode()) } }, headers)

async function collect(gen: AsyncGenerator<BatchAnswer>): Promise<BatchAnswer[]> {
  const out: BatchAnswer[] = []
  for await (const answer of gen) out.push(answer)
  return out
}

describe('qrCodes.batches', () => {
  it('sends 100 per request with the derived keys, and says per batch which the server replayed', async () => {
    const fetch = fakeFetch(created(100), created(100, { 'idempotent-replayed': 'true' }), created(50))
    const qrctl = new Qrctl({ apiKey: API_KEY, fetch })
    const answers = await collect(
      qrctl.qrCodes.batches(input(250), { idempotencyKey: (b) => `file-${b.offset}-${b.codes.length}` }),
    )
    expect(answers.map((a) => [a.index, a.offset, a.codes.length, a.idempotencyKey, a.source])).toEqual([
      [0, 0, 100, 'file-0-100', 'sent'],
      [1, 100, 100, 'file-100-100', 'replayed'],
      [2, 200, 50, 'file-200-50', 'sent'],
    ])
    expect(fetch.calls.map((c) => c.headers['idempotency-key'])).toEqual([
      'file-0-100',
      'file-100-100',
      'file-200-50',
    ])
  })

  it('yields a known answer without a request', async () => {
    const fetch = fakeFetch(created(1))
    const saved: BatchResult = { created: 1, errors: [], items: [] }
    const answers = await collect(
      new Qrctl({ apiKey: API_KEY, fetch }).qrCodes.batches(input(3), {
        size: 1,
        idempotencyKey: (b) => `k${b.index}`,
        known: (_b, key) => (key === 'k1' ? undefined : saved),
      }),
    )
    expect(answers.map((a) => a.source)).toEqual(['known', 'sent', 'known'])
    expect(fetch.calls).toHaveLength(1)
  })

  it('waits for the window to reset when the last answer left nothing of it, and tells onWait', async () => {
    const spent = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' }
    const fetch = fakeFetch(created(1, spent), created(1))
    const waits: number[] = []
    await collect(
      new Qrctl({ apiKey: API_KEY, fetch }).qrCodes.batches(input(2), {
        size: 1,
        onWait: (ms) => waits.push(ms),
      }),
    )
    expect(waits).toHaveLength(1)
    expect(waits[0]).toBeGreaterThan(0)
    expect(fetch.calls).toHaveLength(2)
  })

  it('waits out a 429 that outlived the retries and sends the batch again with the same key', async () => {
    const fetch = fakeFetch(apiError(429, 'rate_limited', { retryAfter: 0 }), created(1))
    const reasons: string[] = []
    const answers = await collect(
      new Qrctl({ apiKey: API_KEY, fetch, maxRetries: 0 }).qrCodes.batches(input(1), {
        idempotencyKey: () => 'same',
        onWait: (_ms, reason) => reasons.push(reason),
      }),
    )
    expect(answers.map((a) => a.source)).toEqual(['sent'])
    expect(reasons).toEqual(['rate limited by the server'])
    expect(fetch.calls.map((c) => c.headers['idempotency-key'])).toEqual(['same', 'same'])
  })

  it('stops on an aborted signal during a wait', async () => {
    const fetch = fakeFetch(apiError(429, 'rate_limited', { retryAfter: 30 }))
    const abort = new AbortController()
    const run = collect(
      new Qrctl({ apiKey: API_KEY, fetch, maxRetries: 0 }).qrCodes.batches(input(1), {
        signal: abort.signal,
        onWait: () => abort.abort(new Error('stop')),
      }),
    )
    await expect(run).rejects.toThrow('stop')
  })

  it('refuses a size outside 1–100', async () => {
    const qrctl = new Qrctl({ apiKey: API_KEY, fetch: fakeFetch() })
    await expect(collect(qrctl.qrCodes.batches(input(1), { size: 101 }))).rejects.toThrow(/size/)
  })
})
