import { parentPort } from 'node:worker_threads'
import { decodeCheck } from './decode-check.js'
import { prepareDecoders } from './decoders.js'
import type { PoolAnswer, PoolTask } from './pool.js'

/**
 * A decode-check thread (pool.ts): one check at a time, as the pool posts them. The decoders'
 * wasm is compiled as the thread starts, beside the first render instead of after it.
 */
void prepareDecoders()

parentPort?.on('message', async (task: PoolTask) => {
  let answer: PoolAnswer
  try {
    answer = { id: task.id, result: await decodeCheck(task.payload, task.style, task.logo) }
  } catch (error) {
    answer = { id: task.id, error: error instanceof Error ? error.message : String(error) }
  }
  parentPort?.postMessage(answer)
})
parentPort?.postMessage({ ready: true } satisfies PoolAnswer)
