import type { Worker } from 'node:worker_threads'
import type { Config } from '../../config.js'
import type { Ctx } from '../../context.js'
import { mayUseThread, startModuleThread } from '../../lib/thread.js'
import { appendScanEvents } from '../webhooks/webhook-outbox.js'
import { type ScanColumns, toColumns } from './scan-columns.js'
import type { ScanEvent } from './scan-event.js'
import { type BatchPosition, writeScans } from './scans.service.js'
import { SeenVisitors } from './seen-visitors.js'

/**
 * Where buffered scans are written. On a SQLite file a worker thread owns a write connection
 * of its own (DESIGN §18): better-sqlite3 is synchronous, so a batch written on the main
 * thread held every redirect for its duration (issue #20: p99 4.85× a bare server's), and a
 * lock held by another process stalled it further. The main thread only posts the batch and
 * hears back; redirects never wait on a write. PostgreSQL's driver is asynchronous already, and
 * an in-memory SQLite database cannot be shared with a thread, so both write in-process.
 */
export interface ScanWriter {
  /** Resolves once the writer can write (its thread has opened the database). */
  ready: Promise<void>
  /** Stores the batch (see `writeScans`); resolves with how many were kept, rejects when the write failed. */
  write(events: ScanEvent[], position?: BatchPosition): Promise<number>
  close(): Promise<void>
}

export function createScanWriter(ctx: WriteCtx & Pick<Ctx, 'logger'>): ScanWriter {
  // On PostgreSQL the server does the writing; a SQLite file's writes go to a thread of their own.
  if (ctx.config.database.dialect === 'sqlite' && mayUseThread(ctx))
    return threadWriter(ctx.config, ctx.logger)
  return { ready: Promise.resolve(), write: storeScans(ctx), close: async () => {} }
}

/**
 * The one way a batch is stored, in-process or in the thread: `writeScans`, with the webhook
 * outbox's `scan.created` events in the same transaction (DESIGN §15).
 */
export function storeScans(
  ctx: WriteCtx,
): (events: ScanEvent[], position?: BatchPosition) => Promise<number> {
  const seen = new SeenVisitors()
  return (events, position) =>
    writeScans(ctx, events, seen, (trx, ids) => appendScanEvents(ctx, trx, ids), position)
}

type WriteCtx = Pick<Ctx, 'db' | 'dialect' | 'config' | 'clock' | 'ids'>

export interface WriteRequest {
  id: number
  /** The batch, as columns: cheaper to clone across the threads (scan-columns.ts). */
  scans: ScanColumns
  position?: BatchPosition
}
export type WriteAnswer =
  | { id: number; written: number }
  | { id: number; error: string }
  /** Posted once, when the thread's database is open. */
  | { ready: true }
export interface WriterData {
  config: Config
}

function threadWriter(config: Config, logger: Ctx['logger']): ScanWriter {
  const pending = new Map<number, { resolve(n: number): void; reject(e: Error): void }>()
  let next = 0
  let worker: Worker | undefined
  let closed = false

  const failAll = (error: Error) => {
    for (const p of pending.values()) p.reject(error)
    pending.clear()
  }
  let markReady: () => void = () => {}
  let failStart: (error: Error) => void = () => {}
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve
    failStart = reject
  })
  /** The thread, started again after it died: its batch failed and goes back to the buffer. */
  const thread = () => {
    if (worker) return worker
    const started = startModuleThread(import.meta.url, 'scan-writer.thread', { config } satisfies WriterData)
    started.on('message', (answer: WriteAnswer) => {
      if ('ready' in answer) {
        if (pending.size === 0) started.unref()
        return markReady()
      }
      const waiting = pending.get(answer.id)
      pending.delete(answer.id)
      if (pending.size === 0) started.unref()
      if ('error' in answer) waiting?.reject(new Error(answer.error))
      else waiting?.resolve(answer.written)
    })
    started.on('error', (error) => {
      // An error thrown in the thread outside a batch's write would otherwise go unseen.
      logger.error({ err: error }, 'the scan writer thread failed')
      failStart(error)
      failAll(error)
    })
    started.on('exit', (code) => {
      if (worker === started) worker = undefined
      if (code !== 0 && !closed)
        logger.warn({ code }, 'the scan writer thread exited; the next batch starts another')
      failAll(new Error(`the scan writer thread exited (${code})`))
    })
    // The thread keeps the process alive while it starts and while a batch is being written.
    worker = started
    return started
  }

  // Started now, not on the first scan: loading its modules takes a moment.
  thread()
  return {
    ready,
    write(events, position) {
      if (closed) return Promise.reject(new Error('the scan writer is closed'))
      const id = next++
      return new Promise<number>((resolve, reject) => {
        pending.set(id, { resolve, reject })
        const target = thread()
        target.ref()
        target.postMessage({ id, scans: toColumns(events), position } satisfies WriteRequest)
      })
    },
    async close() {
      closed = true
      await worker?.terminate()
    },
  }
}
