/** First backoff step; doubled on every further retry (Stripe uses the same start). */
export const INITIAL_RETRY_DELAY_MS = 500
/** Backoff never grows past this, however many retries are allowed. */
export const MAX_RETRY_DELAY_MS = 8_000
/**
 * A `Retry-After` longer than this is not waited out: failing fast with the error (and its
 * `retryAfter`) lets the caller decide, rather than hanging for minutes inside one call.
 */
export const MAX_RETRY_AFTER_MS = 60_000

/**
 * Exponential backoff with jitter for retry number `retry` (0 for the first retry):
 * 500 ms, 1 s, 2 s … capped at 8 s, each scaled by a random factor in [0.5, 1) so that
 * many clients failing together do not come back together.
 */
export function backoffDelayMs(retry: number, random: () => number = Math.random): number {
  const base = Math.min(INITIAL_RETRY_DELAY_MS * 2 ** retry, MAX_RETRY_DELAY_MS)
  return Math.round(base * (0.5 + random() * 0.5))
}

/**
 * How long to wait before retry number `retry`. The server's `Retry-After` wins when it is
 * longer than the backoff: retrying earlier would only earn another 429.
 */
export function retryDelayMs(retry: number, retryAfterSeconds?: number, random?: () => number): number {
  const backoff = backoffDelayMs(retry, random)
  if (retryAfterSeconds === undefined) return backoff
  return Math.max(backoff, retryAfterSeconds * 1000)
}

/**
 * Statuses worth another attempt: 429 (the window resets), and 5xx (a deploy, an overloaded
 * or briefly failing node). 4xx other than 429 say the request itself is wrong: retrying
 * cannot help. 501 means the route will never work.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status !== 501)
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
