import { readlinkSync } from 'node:fs'
import { constants, setPriority } from 'node:os'
import { Worker } from 'node:worker_threads'
import type { Config } from '../config.js'
import { type Clock, systemClock } from './clock.js'
import { type Ids, randomIds } from './ids.js'

/**
 * Whether work of this context may move into a worker thread of its own: the thread opens its
 * own database connection (an in-memory SQLite database belongs to this connection alone) and
 * uses the system clock and ids (a test's own cannot cross into it). The one rule for the scan
 * writer's thread and the webhook sender's.
 */
export function mayUseThread(ctx: { config: Config; clock: Clock; ids: Ids }): boolean {
  const { database } = ctx.config
  const inMemory = database.dialect === 'sqlite' && database.filename === ':memory:'
  return !inMemory && ctx.clock === systemClock && ctx.ids === randomIds
}

/**
 * Starts the module `<name>.ts` or `<name>.js` beside `from` (an `import.meta.url`) in a worker
 * thread with `workerData`. From source (tsx, vitest) the thread needs the same TypeScript
 * loader, and tsx's hooks do not reach a thread through execArgv: the thread registers them
 * before it imports the module. The build is plain JS.
 */
export function startModuleThread(from: string, name: string, workerData: unknown): Worker {
  const fromSource = from.endsWith('.ts')
  const entry = new URL(`./${name}.${fromSource ? 'ts' : 'js'}`, from)
  if (!fromSource) return new Worker(entry, { workerData })
  return new Worker(
    `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}) })`,
    { workerData, eval: true, execArgv: ['--conditions=source'] },
  )
}

/**
 * Gives the calling thread the lowest scheduling priority (nice 19), on Linux, where a thread
 * has an id of its own that `setpriority` takes (`/proc/thread-self` names it). Under CPU
 * contention the kernel then runs the process's other threads first; with a spare core the
 * thread runs as fast as ever. Answers whether it could (elsewhere the thread keeps its priority).
 */
export function lowerThreadPriority(): boolean {
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop())
    if (!Number.isInteger(threadId) || threadId <= 0) return false
    setPriority(threadId, constants.priority.PRIORITY_LOW)
    return true
  } catch {
    return false
  }
}
