import type { BatchResult, CreateQrCodeParams, QrCode, Qrctl } from '@qrctl/sdk'
import { loadContract, loadSdk } from '../lazy.js'
import type { BatchState } from './state.js'

export interface Chunk {
  /** `batch-<sha256(file)[:16]>-<first line>-<last line>`: the same rows of the same file get the same key. */
  key: string
  lines: number[]
  codes: CreateQrCodeParams[]
}

export type RowOutcome =
  | { line: number; ok: true; code: QrCode }
  | { line: number; ok: false; errors: string[] }

export interface ChunkDone {
  index: number
  chunk: Chunk
  outcomes: RowOutcome[]
  /**
   * Where the answer came from: `sent`, the server did the batch now; `replayed`, the server
   * had done it before under the same key (an earlier run, or an attempt whose answer was
   * lost) and answered it again; `state`, the state file, without a request.
   */
  source: 'sent' | 'replayed' | 'state'
}

export interface UploadHooks {
  onChunk(done: ChunkDone): void
  /** Called before waiting for the rate-limit window to reset. */
  onWait(ms: number, reason: string): void
}

/** Splits the valid rows into batches of the contract's maximum (100), each with its idempotency key. */
export async function makeChunks(
  rows: readonly { line: number; input: CreateQrCodeParams }[],
  fileHash: string,
): Promise<Chunk[]> {
  const { BATCH_MAX } = await loadContract()
  const chunks: Chunk[] = []
  for (let start = 0; start < rows.length; start += BATCH_MAX) {
    const slice = rows.slice(start, start + BATCH_MAX)
    const lines = slice.map((r) => r.line)
    chunks.push({
      key: `batch-${fileHash}-${lines[0]}-${lines.at(-1)}`,
      lines,
      codes: slice.map((r) => r.input),
    })
  }
  return chunks
}

const ITEM_ERROR = /^codes\[(\d+)\]\.?([^:]*):\s*(.*)$/s

/**
 * Pairs a batch answer with its rows: `errors` name the failed items by index
 * (`codes[3].targetUrl: …`), `items` are the created codes in input order.
 */
export function outcomesOf(chunk: Chunk, result: BatchResult): RowOutcome[] {
  const failed = new Map<number, string[]>()
  const general: string[] = []
  for (const error of result.errors) {
    const match = ITEM_ERROR.exec(error)
    if (!match) {
      general.push(error)
      continue
    }
    const index = Number(match[1])
    const message = match[2] ? `${match[2]}: ${match[3]}` : (match[3] ?? error)
    failed.set(index, [...(failed.get(index) ?? []), message])
  }
  const items = [...result.items]
  return chunk.lines.map((line, i) => {
    const errors = failed.get(i)
    if (errors) return { line, ok: false, errors }
    const code = items.shift()
    return code
      ? { line, ok: true, code }
      : { line, ok: false, errors: general.length ? general : ['not created'] }
  })
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

/** Margin on top of `X-RateLimit-Reset`, which is rounded to whole seconds. */
const RESET_MARGIN_MS = 250

/**
 * Waits for the rate-limit window to reset when the last answer said nothing is left of it,
 * so a long upload spends the window and then pauses instead of earning 429s.
 */
async function pace(client: Qrctl, hooks: UploadHooks, signal: AbortSignal): Promise<void> {
  const limit = client.lastRateLimit
  if (!limit || limit.remaining > 0) return
  const ms = limit.resetAt.getTime() - Date.now() + RESET_MARGIN_MS
  if (ms <= 0) return
  hooks.onWait(ms, `rate limit of ${limit.limit} requests per window reached`)
  await sleep(ms, signal)
}

const MAX_ATTEMPTS = 6

/**
 * Sends one batch with its idempotency key. A 429 that survived the SDK's retries (someone
 * else spent the window) is waited out rather than failed. A 409 saying our key is still in
 * progress (this batch, from a run that was interrupted, is still running on the server) is
 * the SDK's to wait out; it returns the replayed answer once the server has stored it.
 */
async function send(
  client: Qrctl,
  chunk: Chunk,
  hooks: UploadHooks,
  signal: AbortSignal,
): Promise<{ result: BatchResult; replayed: boolean }> {
  const { QrctlRateLimitError } = await loadSdk()
  for (let attempt = 1; ; attempt++) {
    await pace(client, hooks, signal)
    try {
      const result = await client.qrCodes.batch(chunk.codes, { idempotencyKey: chunk.key, signal })
      // Batches go one at a time, so the latest answer is this one.
      return { result, replayed: client.lastResponse?.replayed === true }
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !(error instanceof QrctlRateLimitError)) throw error
      const ms = (error.retryAfter ?? 1) * 1000 + RESET_MARGIN_MS
      hooks.onWait(ms, 'rate limited by the server')
      await sleep(ms, signal)
    }
  }
}

/** Sends every chunk in order; chunks the state file already holds are reported without a request. */
export async function upload(
  client: Qrctl,
  chunks: readonly Chunk[],
  state: BatchState,
  hooks: UploadHooks,
  signal: AbortSignal,
): Promise<void> {
  for (const [index, chunk] of chunks.entries()) {
    const saved = state.find(chunk.key, chunk.lines)
    if (saved) {
      hooks.onChunk({ index, chunk, outcomes: outcomesOf(chunk, saved.result), source: 'state' })
      continue
    }
    const { result, replayed } = await send(client, chunk, hooks, signal)
    await state.add({ key: chunk.key, lines: chunk.lines, result })
    const source = replayed ? 'replayed' : 'sent'
    hooks.onChunk({ index, chunk, outcomes: outcomesOf(chunk, result), source })
  }
}
