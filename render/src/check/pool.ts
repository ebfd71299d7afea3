import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import type { StyleInput } from '../style.js'
import { type DecodeCheckResult, decodeCheck } from './decode-check.js'

/**
 * The decode check (DESIGN §13) on a small pool of worker threads: the same `decodeCheck`,
 * each call run whole on one thread, so a batch's checks use every core and the caller's event
 * loop stays free while they run (a check is ~80 ms of CPU; a batch of them held every other
 * request of the server for seconds).
 */
export interface DecodeCheckPool {
  /** `decodeCheck(payload, style, logo)`, on the first free thread. */
  check(payload: string, style: StyleInput, logo?: Uint8Array): Promise<DecodeCheckResult>
  /** Ends every thread; a check still waiting or running on a thread rejects. */
  close(): Promise<void>
  /** Threads at most. */
  readonly size: number
  /** Threads ready to take checks now. */
  readonly threads: number
}

export interface DecodeCheckPoolOptions {
  /** Threads at most, started as checks arrive (default: the cores this process may use). */
  size?: number
  /** An idle thread ends after this long (default 60 s); the next check starts one again. */
  idleMs?: number
  /**
   * While no thread is ready yet (the first check, or the first after the threads went idle),
   * the calling thread runs the waiting checks itself, one at a time, so no check waits for a
   * thread to start (default true).
   */
  runHereWhileStarting?: boolean
  /**
   * Told when a thread fails. The check it was running is run again on the calling thread; a
   * thread that cannot start at all (no TypeScript loader, say) sends every later check there.
   */
  onError?: (error: Error) => void
  /**
   * A thread not ready this long after it was started (default 30 s) is ended and counts as
   * one that could not start, so a loader that hangs cannot hang the checks.
   */
  startTimeoutMs?: number
  /** @internal Starts one thread (tests hand in threads that fail). */
  startThread?: () => Worker
}

/** @internal the messages between the pool and its threads (pool.thread.ts). */
export interface PoolTask {
  id: number
  payload: string
  style: StyleInput
  logo?: Uint8Array | undefined
}
/** @internal */
export type PoolAnswer =
  | { id: number; result: DecodeCheckResult }
  | { id: number; error: string }
  | { ready: true }

interface Waiting {
  task: PoolTask
  resolve(result: DecodeCheckResult): void
  reject(error: Error): void
}

interface Thread {
  worker: Worker
  /** Set once it said it is ready: checks go only to started threads. */
  started: boolean
  /** The checks posted to it and not answered yet, in the order it runs them (at most `AHEAD + 1`). */
  posted: Waiting[]
  idle?: NodeJS.Timeout | undefined
  /** Set once its idle time is up: it takes no more checks. */
  ending?: boolean
  /** Set once it reported an error (its exit is then no news). */
  failed?: boolean
}

/** The thread's entry: from source (tsx, vitest) it needs the TypeScript loader; the build is plain JS. */
function startThread(): Worker {
  const fromSource = import.meta.url.endsWith('.ts')
  const entry = new URL(`./pool.thread.${fromSource ? 'ts' : 'js'}`, import.meta.url)
  // A thread inherits the process's flags, but `--input-type` (of `node -e`) refuses a file entry.
  const execArgv = process.execArgv.filter((flag) => !flag.startsWith('--input-type'))
  if (!fromSource) return new Worker(entry, { execArgv })
  // tsx's hooks do not reach a thread through execArgv: the thread registers them first (as
  // the server's scan writer thread does).
  return new Worker(
    `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}) })`,
    { eval: true, execArgv: ['--conditions=source'] },
  )
}

const closedError = () => new Error('the decode-check pool is closed')

/**
 * Checks a thread holds beyond the one it runs. While a batch's checks wait, each thread gets
 * its next one before it finishes the current one, so it never sits idle waiting for the
 * calling thread to be scheduled and hand it over (at load 6–11 that hand-off took a
 * median 0.5–5 ms per check, 2–3% of a batch). Only while more checks wait than there are
 * threads, so the last ones still go to whichever thread is free first.
 */
const AHEAD = 1

/**
 * A pool of decode-check threads, started lazily and never keeping the process alive while
 * idle. `close()` it with the server.
 * @example const pool = createDecodeCheckPool(); await pool.check('https://example.com', { moduleShape: 'dot' }); await pool.close()
 */
export function createDecodeCheckPool(options: DecodeCheckPoolOptions = {}): DecodeCheckPool {
  const size = Math.max(1, options.size ?? availableParallelism())
  const idleMs = options.idleMs ?? 60_000
  const startTimeoutMs = options.startTimeoutMs ?? 30_000
  const runHereWhileStarting = options.runHereWhileStarting ?? true
  const threads: Thread[] = []
  const queue: Waiting[] = []
  let nextId = 0
  let closed = false
  /** Set when a thread failed before it started: checks then run on the calling thread. */
  let inProcess = false
  /** Set while the calling thread runs a check itself. */
  let helping = false

  const runHere = (waiting: Waiting) => {
    const { payload, style, logo } = waiting.task
    decodeCheck(payload, style, logo).then(waiting.resolve, waiting.reject)
  }

  const spawn = () => {
    const thread: Thread = { worker: (options.startThread ?? startThread)(), started: false, posted: [] }
    const { worker } = thread
    const startTimer = setTimeout(() => {
      options.onError?.(new Error(`a decode-check thread was not ready after ${startTimeoutMs} ms`))
      thread.failed = true
      void worker.terminate()
    }, startTimeoutMs).unref()
    worker.on('message', (answer: PoolAnswer) => {
      if ('ready' in answer) {
        thread.started = true
        clearTimeout(startTimer)
      } else {
        const at = thread.posted.findIndex((waiting) => waiting.task.id === answer.id)
        const [waiting] = at >= 0 ? thread.posted.splice(at, 1) : []
        if ('error' in answer) waiting?.reject(new Error(answer.error))
        else waiting?.resolve(answer.result)
      }
      dispatch()
    })
    worker.on('error', (error) => {
      thread.failed = true
      options.onError?.(error)
    })
    worker.on('exit', (code) => {
      clearTimeout(startTimer)
      clearTimeout(thread.idle)
      const at = threads.indexOf(thread)
      if (at >= 0) threads.splice(at, 1)
      const lost = thread.posted.splice(0)
      if (closed) {
        for (const waiting of lost) waiting.reject(closedError())
        return
      }
      if (!thread.ending && !thread.failed)
        options.onError?.(new Error(`a decode-check thread exited (code ${code})`))
      if (!thread.started) inProcess = true
      // Run once more, here: a check that kills its thread must not kill the next one too. A
      // check only posted behind it goes back to the head of the queue.
      const [running, ...behind] = lost
      if (running) runHere(running)
      queue.unshift(...behind)
      dispatch()
    })
    threads.push(thread)
  }

  /** Hands waiting checks to ready threads, starting threads (up to `size`) for the rest. */
  const dispatch = () => {
    if (closed) return
    if (inProcess) {
      for (const waiting of queue.splice(0)) runHere(waiting)
      return
    }
    const post = (thread: Thread) => {
      const waiting = queue.shift() as Waiting
      clearTimeout(thread.idle)
      thread.idle = undefined
      thread.posted.push(waiting)
      // A thread keeps the process alive only while it has a check to answer.
      thread.worker.ref()
      thread.worker.postMessage(waiting.task)
    }
    const ready = threads.filter((t) => t.started && !t.ending)
    // First a check for every free thread, then one ahead for each busy one while the queue
    // holds more than every thread can take: the last checks wait for the first free thread.
    for (const thread of ready) {
      if (queue.length === 0) break
      if (thread.posted.length === 0) post(thread)
    }
    for (let ahead = 1; ahead <= AHEAD; ahead++) {
      for (const thread of ready) {
        if (queue.length <= ready.length) break
        if (thread.posted.length === ahead) post(thread)
      }
    }
    let starting = threads.filter((t) => !t.started).length
    for (; queue.length > starting && threads.length < size; starting++) spawn()
    if (
      runHereWhileStarting &&
      queue.length > 0 &&
      !helping &&
      !threads.some((t) => t.started && !t.ending)
    ) {
      helping = true
      const waiting = queue.shift() as Waiting
      const { payload, style, logo } = waiting.task
      decodeCheck(payload, style, logo)
        .then(waiting.resolve, waiting.reject)
        .finally(() => {
          helping = false
          // The event loop gets a turn before the next check.
          setImmediate(dispatch)
        })
    }
    for (const thread of threads) {
      if (!thread.started || thread.posted.length > 0 || thread.idle || thread.ending) continue
      thread.worker.unref()
      thread.idle = setTimeout(() => {
        thread.ending = true
        void thread.worker.terminate()
      }, idleMs).unref()
    }
  }

  return {
    size,
    get threads() {
      return threads.filter((t) => t.started && !t.ending).length
    },
    check(payload, style, logo) {
      if (closed) return Promise.reject(closedError())
      return new Promise<DecodeCheckResult>((resolve, reject) => {
        // Only the bytes of the logo's view are copied to the thread, not the buffer behind it.
        const task: PoolTask = { id: nextId++, payload, style, logo: logo && new Uint8Array(logo) }
        queue.push({ task, resolve, reject })
        dispatch()
      })
    },
    async close() {
      closed = true
      for (const waiting of queue.splice(0)) waiting.reject(closedError())
      await Promise.all(threads.map((thread) => thread.worker.terminate()))
    },
  }
}
