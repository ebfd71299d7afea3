import { createHash } from 'node:crypto'
import { appendFile, mkdir, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { BatchResult } from '@qrctl/sdk'
import { xdgDir } from '../config.js'

/** One finished batch, as the server answered it. */
export interface BatchRecord {
  key: string
  lines: number[]
  result: BatchResult
}

/**
 * What a batch run has finished so far, one JSON line per answered batch, in
 * `$XDG_STATE_HOME/qrctl/batches/`. The Idempotency-Keys alone already make a re-run safe
 * (the server replays finished batches for 24 hours); this file lets a resumed run skip those
 * requests altogether and still report every row. It is named after the file's hash and a
 * hash of the API key, so another account never resumes from it, and removed once every batch
 * has an answer.
 */
export class BatchState {
  readonly path: string
  readonly #done = new Map<string, BatchRecord>()

  private constructor(path: string) {
    this.path = path
  }

  static async open(env: NodeJS.ProcessEnv, fileHash: string, apiKey: string): Promise<BatchState> {
    // The key names the account (keys are random, so one key is never valid on two servers);
    // the server's address is left out, so `localhost` and `127.0.0.1` resume alike.
    const account = createHash('sha256').update(apiKey).digest('hex').slice(0, 12)
    const dir = join(xdgDir(env, 'XDG_STATE_HOME', join('.local', 'state')), 'qrctl', 'batches')
    const state = new BatchState(join(dir, `${fileHash}-${account}.jsonl`))
    let text = ''
    try {
      text = await readFile(state.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
    for (const line of text.split('\n')) {
      if (!line) continue
      try {
        const record = JSON.parse(line) as BatchRecord
        state.#done.set(record.key, record)
      } catch {
        // A line cut short by a crash: that batch is sent again, and the server replays it.
      }
    }
    return state
  }

  /** The stored answer of a batch, if it was sent with the same rows. */
  find(key: string, lines: readonly number[]): BatchRecord | undefined {
    const record = this.#done.get(key)
    if (!record || record.lines.length !== lines.length) return undefined
    return record.lines.every((line, i) => line === lines[i]) ? record : undefined
  }

  get size(): number {
    return this.#done.size
  }

  async add(record: BatchRecord): Promise<void> {
    this.#done.set(record.key, record)
    await mkdir(join(this.path, '..'), { recursive: true, mode: 0o700 })
    await appendFile(this.path, `${JSON.stringify(record)}\n`, { mode: 0o600 })
  }

  async remove(): Promise<void> {
    await rm(this.path, { force: true })
  }
}
