import { describe, expect, it } from 'vitest'
import { backoffDelayMs, isRetryableStatus, MAX_RETRY_DELAY_MS, retryDelayMs, sleep } from './retry.js'

describe('backoff', () => {
  it('doubles from 500 ms and stops at the cap', () => {
    const top = () => 0.999_999
    expect([0, 1, 2, 3, 4, 5, 10].map((retry) => backoffDelayMs(retry, top))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000, 8000,
    ])
    expect(backoffDelayMs(20, top)).toBeLessThanOrEqual(MAX_RETRY_DELAY_MS)
  })

  it('jitters each delay down to half, never below', () => {
    expect(backoffDelayMs(0, () => 0)).toBe(250)
    expect(backoffDelayMs(3, () => 0)).toBe(2000)
    const delays = new Set(Array.from({ length: 50 }, () => backoffDelayMs(2)))
    expect(delays.size).toBeGreaterThan(1)
    for (const delay of delays) expect(delay).toBeGreaterThanOrEqual(1000)
  })

  it('waits at least as long as Retry-After says', () => {
    expect(retryDelayMs(0, 5, () => 0)).toBe(5000)
    expect(retryDelayMs(4, 1, () => 0)).toBe(4000)
    expect(retryDelayMs(0, undefined, () => 0)).toBe(250)
  })
})

describe('isRetryableStatus', () => {
  it('retries 429 and 5xx but not other 4xx or 501', () => {
    expect([429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true)
    expect([400, 401, 403, 404, 409, 413, 415, 501].some(isRetryableStatus)).toBe(false)
  })
})

describe('sleep', () => {
  it('rejects with the reason when the signal aborts', async () => {
    const controller = new AbortController()
    const waiting = sleep(60_000, controller.signal)
    controller.abort(new Error('stop'))
    await expect(waiting).rejects.toThrow('stop')
    await expect(sleep(1, AbortSignal.abort(new Error('already')))).rejects.toThrow('already')
  })
})
