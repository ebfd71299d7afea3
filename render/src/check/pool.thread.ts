import { parentPort } from 'node:worker_threads'
import { decodeCheck } from './decode-check.js'
import { prepareDecoders } from './decoders.js'
import type { PoolAnswer, PoolTask } from './pool.js'

/**
 * A decode-check thread (pool.ts): one check at a time, in the order the pool posts them. The
 * pool may post the next check while this one runs; it waits here, so the thread starts it as
 * soon as it answers the last one instead of waiting for the pool's thread to hand it over. The
 * decoders' wasm is compiled as the thread starts, beside the first render instead of after it.
 */
void prepareDecoders()

const waiting: PoolTask[] = []
let running = false

async function runWaiting(): Promise<void> {
  running = true
  for (let task = waiting.shift(); task; task = waiting.shift()) {
    let answer: PoolAnswer
    try {
      answer = { id: task.id, result: await decodeCheck(task.payload, task.style, task.logo) }
    } catch (error) {
      answer = { id: task.id, error: error instanceof Error ? error.message : String(error) }
    }
    parentPort?.postMessage(answer)
  }
  running = false
}

parentPort?.on('message', (task: PoolTask) => {
  waiting.push(task)
  if (!running) void runWaiting()
})
parentPort?.postMessage({ ready: true } satisfies PoolAnswer)
