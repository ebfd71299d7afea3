import { BATCH_MAX, type BatchResult, parseBatchErrors, parseExternalIdTaken } from '@qrctl/contract'
import type { CreateQrCodeParams, QrCode, Qrctl } from '@qrctl/sdk'
import type { BatchState } from './state.js'

/** A checked CSV row, ready to send. */
export interface UploadRow {
  line: number
  input: CreateQrCodeParams
}

export type RowOutcome =
  | { line: number; status: 'created'; code: QrCode }
  /** Its externalId is held by a code uploaded before (an earlier run): nothing was created. */
  | { line: number; status: 'exists'; id: string }
  | { line: number; status: 'failed'; errors: string[] }

export interface ChunkDone {
  index: number
  lines: number[]
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

/** `batch-<sha256(file)[:16]>-<first line>-<last line>`: the same rows of the same file get the same key. */
export function batchKey(fileHash: string, lines: readonly number[]): string {
  return `batch-${fileHash}-${lines[0]}-${lines.at(-1)}`
}

/** How many requests `rows` take. */
export function batchCount(rows: number, size = BATCH_MAX): number {
  return Math.ceil(rows / size)
}

/**
 * Pairs a batch answer with its rows: `errors` name the failed items by index
 * (`codes[3].targetUrl: …`, parsed by the contract), `items` are the created codes in input
 * order. An item refused only because its externalId is taken was uploaded before: `exists`.
 */
export function outcomesOf(lines: readonly number[], result: BatchResult): RowOutcome[] {
  const failed = new Map<number, string[]>()
  const existing = new Map<number, string>()
  const general: string[] = []
  for (const error of result.errors) {
    const parts = parseBatchErrors(error)
    if (parts.length === 0) general.push(error)
    for (const part of parts) {
      const holder = part.field === 'externalId' ? parseExternalIdTaken(part.message) : undefined
      if (holder && parts.length === 1) existing.set(part.index, holder)
      const message = part.field ? `${part.field}: ${part.message}` : part.message
      failed.set(part.index, [...(failed.get(part.index) ?? []), message])
    }
  }
  const items = [...result.items]
  return lines.map((line, i): RowOutcome => {
    const id = existing.get(i)
    if (id) return { line, status: 'exists', id }
    const errors = failed.get(i)
    if (errors) return { line, status: 'failed', errors }
    const code = items.shift()
    if (code) return { line, status: 'created', code }
    return { line, status: 'failed', errors: general.length ? general : ['not created'] }
  })
}

/**
 * Sends the rows through the SDK's `batches` (100 per request, paced, 429s waited out), each
 * batch keyed by the file and its lines; batches the state file holds are reported without a
 * request, and each new answer is recorded in it.
 */
export async function upload(
  client: Qrctl,
  rows: readonly UploadRow[],
  fileHash: string,
  state: BatchState,
  hooks: UploadHooks,
  signal: AbortSignal,
  size = BATCH_MAX,
): Promise<void> {
  const linesOf = (offset: number, count: number) => rows.slice(offset, offset + count).map((r) => r.line)
  const batches = client.qrCodes.batches(
    rows.map((r) => r.input),
    {
      size,
      signal,
      idempotencyKey: (b) => batchKey(fileHash, linesOf(b.offset, b.codes.length)),
      known: (b, key) => (key ? state.find(key, linesOf(b.offset, b.codes.length))?.result : undefined),
      onWait: (ms, reason) => hooks.onWait(ms, reason),
    },
  )
  for await (const batch of batches) {
    const lines = linesOf(batch.offset, batch.codes.length)
    if (batch.source !== 'known' && batch.idempotencyKey)
      await state.add({ key: batch.idempotencyKey, lines, result: batch.result })
    const source = batch.source === 'known' ? 'state' : batch.source
    hooks.onChunk({ index: batch.index, lines, outcomes: outcomesOf(lines, batch.result), source })
  }
}
