import { BATCH_MAX, parseBatchErrors } from '@qrctl/contract'
import { QrctlRateLimitError } from './errors.js'
import type { RateLimit, RequestOptions } from './options.js'
import { sleep } from './retry.js'
import type { BatchResult, CreateQrCodeParams } from './types.js'

/** Splits `items` into runs of at most `size`. */
export function chunk<T>(items: readonly T[], size = BATCH_MAX): T[][] {
  const chunks: T[][] = []
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size))
  return chunks
}

const INDEX = /^codes\[(\d+)\]/

/** `codes[3]…` of the batch that starts at input index `offset` becomes `codes[offset+3]…`. */
export function reindexError(error: string, offset: number): string {
  return error.replace(INDEX, (_, index: string) => `codes[${offset + Number(index)}]`)
}

/** How many items the errors are about: one per distinct index, one per string without one. */
export function countFailedItems(errors: readonly string[]): number {
  const indexes = new Set<number>()
  let unindexed = 0
  for (const error of errors) {
    const [first] = parseBatchErrors(error)
    if (first === undefined) unindexed++
    else indexes.add(first.index)
  }
  return indexes.size + unindexed
}

/** One batch of the input: the `index`-th, holding `codes`, which start at input index `offset`. */
export interface BatchSlice {
  index: number
  offset: number
  codes: CreateQrCodeParams[]
}

/** One batch and its answer, as `qrCodes.batches` yields them. */
export interface BatchAnswer extends BatchSlice {
  /** The Idempotency-Key it was sent with (from the `idempotencyKey` option). */
  idempotencyKey: string | undefined
  /** The server's answer; indexes in `errors` are within this batch (`codes[0]` is `offset`). */
  result: BatchResult
  /**
   * `sent`: the server created the batch now. `replayed`: the server had done this batch
   * before under the same Idempotency-Key and answered it again (nothing was created twice).
   * `known`: the `known` option gave the answer, and nothing was sent.
   */
  source: 'sent' | 'replayed' | 'known'
}

export interface BatchesOptions extends Omit<RequestOptions, 'idempotencyKey'> {
  /** Validate every item and create nothing. */
  dryRun?: boolean
  /** Items per request, 1–100 (default 100). */
  size?: number
  /** The Idempotency-Key of a batch. Derive it from the input so that a re-run replays finished batches. */
  idempotencyKey?: (batch: BatchSlice) => string
  /** The answer of a batch known already (saved by an earlier run): it is yielded without a request. */
  known?: (
    batch: BatchSlice,
    idempotencyKey: string | undefined,
  ) => BatchResult | undefined | Promise<BatchResult | undefined>
  /** Called before the SDK waits for the rate-limit window to reset, with the wait and why. */
  onWait?: (ms: number, reason: string) => void
}

/** What `batches` needs of the client: one request, and the rate-limit headers of the latest answer. */
export interface BatchSender {
  send(
    codes: CreateQrCodeParams[],
    options: RequestOptions & { dryRun?: boolean },
  ): Promise<{ result: BatchResult; replayed: boolean }>
  lastRateLimit(): RateLimit | undefined
}

/** Margin on top of `X-RateLimit-Reset`, which is rounded to whole seconds. */
const RESET_MARGIN_MS = 250
/** Requests per batch before a 429 that outlived the client's retries is given up on. */
const MAX_ATTEMPTS = 6

/** Waits out an exhausted rate-limit window instead of earning a 429. */
async function pace(sender: BatchSender, options: BatchesOptions): Promise<void> {
  const limit = sender.lastRateLimit()
  if (!limit || limit.remaining > 0) return
  const ms = limit.resetAt.getTime() - Date.now() + RESET_MARGIN_MS
  if (ms <= 0) return
  options.onWait?.(ms, `rate limit of ${limit.limit} requests per window reached`)
  await sleep(ms, options.signal)
}

/**
 * Sends one batch, paced. A 429 that survived the client's retries (someone else spent the
 * window) is waited out rather than failed; a 409 saying the key is still in progress is
 * retried by the transport, which then returns the replayed answer.
 */
async function sendPaced(
  sender: BatchSender,
  codes: CreateQrCodeParams[],
  idempotencyKey: string | undefined,
  options: BatchesOptions,
): Promise<{ result: BatchResult; replayed: boolean }> {
  const { dryRun, size: _size, idempotencyKey: _key, known: _known, onWait, ...requestOptions } = options
  for (let attempt = 1; ; attempt++) {
    await pace(sender, options)
    try {
      return await sender.send(codes, {
        ...requestOptions,
        ...(dryRun === undefined ? {} : { dryRun }),
        ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
      })
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !(error instanceof QrctlRateLimitError)) throw error
      const ms = (error.retryAfter ?? 1) * 1000 + RESET_MARGIN_MS
      onWait?.(ms, 'rate limited by the server')
      await sleep(ms, options.signal)
    }
  }
}

/** The batches of `codes`, one request each, in order (see `QrCodes.batches`). */
export async function* runBatches(
  sender: BatchSender,
  codes: readonly CreateQrCodeParams[],
  options: BatchesOptions,
): AsyncGenerator<BatchAnswer, void, undefined> {
  const size = options.size ?? BATCH_MAX
  if (!Number.isInteger(size) || size < 1 || size > BATCH_MAX)
    throw new TypeError(`Qrctl: \`size\` must be a whole number 1–${BATCH_MAX}, got ${size}`)
  for (const [index, part] of chunk(codes, size).entries()) {
    const slice: BatchSlice = { index, offset: index * size, codes: part }
    const idempotencyKey = options.idempotencyKey?.(slice)
    const saved = await options.known?.(slice, idempotencyKey)
    if (saved) {
      yield { ...slice, idempotencyKey, result: saved, source: 'known' }
      continue
    }
    const { result, replayed } = await sendPaced(sender, part, idempotencyKey, options)
    yield { ...slice, idempotencyKey, result, source: replayed ? 'replayed' : 'sent' }
  }
}
