import type { Logger } from '../../logger.js'
import type { ScanEvent } from './scan-event.js'
import { liveBuffers, scanMetrics } from './scan-metrics.js'

export interface ScanBufferOptions {
  /** A batch is written once this many scans wait… */
  maxBatch: number
  /** …and at least this often while any wait (DESIGN §7: at least once a second). */
  intervalMs: number
  /**
   * At most this many per transaction. A write takes everything that waits, so under heavy
   * load batches grow and each scan costs less (rollup rows and pages are shared).
   */
  maxWrite: number
  /** While the database is unreachable, keep at most this many; the oldest go first. */
  maxPending: number
}

export const DEFAULT_BUFFER_OPTIONS: ScanBufferOptions = {
  // 5,000 rather than 1,000: at thousands of scans a second, larger batches share rollup
  // rows and B-tree pages, which about halves the cost of each scan (docs/performance.md).
  maxBatch: 5000,
  intervalMs: 1000,
  maxWrite: 20_000,
  maxPending: 200_000,
}

/**
 * Scans wait here, in memory, and are written in batches off the request path: a redirect
 * never waits for a database write. A failed write puts its batch back for the next tick.
 */
export class ScanBuffer {
  private events: ScanEvent[] = []
  /** Scans pushed so far: the first waiting scan is number `pushed - events.length` (see flush). */
  private pushed = 0
  private writing: Promise<void> | undefined
  private timer: NodeJS.Timeout | undefined
  private readonly options: ScanBufferOptions

  constructor(
    /** Stores a batch; `firstSeq` numbers its first scan among all pushed (`BatchPosition`). */
    private readonly write: (events: ScanEvent[], firstSeq: number) => Promise<number>,
    private readonly logger: Logger,
    options: Partial<ScanBufferOptions> = {},
  ) {
    this.options = { ...DEFAULT_BUFFER_OPTIONS, ...options }
  }

  start(): void {
    liveBuffers.add(this)
    this.timer ??= setInterval(() => void this.flush(), this.options.intervalMs)
    this.timer.unref()
  }

  get pending(): number {
    return this.events.length
  }

  push(event: ScanEvent): void {
    this.events.push(event)
    this.pushed++
    // A write that hangs (a lock held for long) must not grow memory without bound either;
    // trimmed in steps of a tenth, so a full buffer costs no copying per scan.
    if (this.events.length > this.options.maxPending * 1.1) this.dropOldest()
    if (this.events.length >= this.options.maxBatch && !this.writing) void this.flush()
  }

  /** Writes one batch of what waits now, after any write in progress. Never rejects. */
  flush(): Promise<void> {
    if (this.writing) return this.writing.then(() => this.flush())
    if (this.events.length === 0) return Promise.resolve()
    // Batches leave from the front and a failed one goes back there, so waiting scans keep their
    // numbers: a batch tried again after a lost answer is known by them (`writeScans`).
    const firstSeq = this.pushed - this.events.length
    const batch = this.events.splice(0, this.options.maxWrite)
    this.writing = this.writeBatch(batch, firstSeq).then((written) => {
      this.writing = undefined
      // After a failure the next try waits for the timer (or close's pause): a writer that
      // refuses at once (closed, its thread gone) made this a loop that never yielded.
      if (written && this.events.length >= this.options.maxBatch) void this.flush()
    })
    return this.writing
  }

  /**
   * Stops the timer and writes everything that waits, trying again (a held lock, a database
   * restarting) until `deadlineMs` has passed: a scan is lost only when the whole shutdown
   * allowance is spent. What is still unwritten then is logged and counted as dropped.
   */
  async close(deadlineMs = 30_000): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    const giveUpAt = Date.now() + deadlineMs
    // A write in flight (the timer's, or one a full buffer started) holds its batch outside
    // `events`, and puts it back if it fails: it ends before the buffer counts as empty. Without
    // this, a close that found `events` empty returned at once, the writer's thread was
    // stopped mid-write, and that batch was lost without a word (seen under load: every scan
    // of a SIGTERM test).
    while (this.events.length > 0 || this.writing) {
      if (this.writing) {
        await this.writing
        continue
      }
      const before = this.events.length
      await this.flush()
      if (this.events.length < before) continue
      if (Date.now() >= giveUpAt) break
      await new Promise((resolve) => setTimeout(resolve, Math.min(200, Math.max(0, giveUpAt - Date.now()))))
    }
    if (this.events.length > 0) {
      this.logger.error({ lost: this.events.length }, 'scans could not be written before shutdown')
      scanMetrics.dropped.inc(this.events.length)
      this.events = []
    }
    liveBuffers.delete(this)
  }

  /** Keeps the newest `maxPending`; the oldest are counted as dropped. */
  private dropOldest(): void {
    const excess = this.events.length - this.options.maxPending
    if (excess <= 0) return
    this.events.splice(0, excess)
    scanMetrics.dropped.inc(excess)
  }

  /** Writes the batch, or puts it back; answers whether it was written. Never rejects. */
  private async writeBatch(batch: ScanEvent[], firstSeq: number): Promise<boolean> {
    try {
      const written = await this.write(batch, firstSeq)
      scanMetrics.written.inc(written)
      return true
    } catch (error) {
      scanMetrics.writeFailures.inc()
      this.events = batch.concat(this.events)
      this.dropOldest()
      this.logger.error({ err: error, pending: this.events.length }, 'writing scans failed; will retry')
      return false
    }
  }
}
