import { parentPort, workerData } from 'node:worker_threads'
import { openDatabase } from '../../db/database.js'
import { systemClock } from '../../lib/clock.js'
import { randomIds } from '../../lib/ids.js'
import { fromColumns } from './scan-columns.js'
import { storeScans, type WriteAnswer, type WriteRequest, type WriterData } from './scan-writer.js'

/**
 * The scan writer thread (scan-writer.ts): its own connection to the SQLite file, one batch at
 * a time, in the order posted. Waiting for a lock another process holds blocks this thread
 * only, never the main thread's requests.
 */
const { config } = workerData as WriterData
const handle = openDatabase(config.database)
const store = storeScans({
  db: handle.db,
  dialect: handle.dialect,
  config,
  clock: systemClock,
  ids: randomIds,
})
parentPort?.postMessage({ ready: true } satisfies WriteAnswer)
let queue = Promise.resolve()

parentPort?.on('message', (request: WriteRequest) => {
  queue = queue.then(async () => {
    let answer: WriteAnswer
    try {
      answer = { id: request.id, written: await store(fromColumns(request.scans), request.position) }
    } catch (error) {
      answer = { id: request.id, error: error instanceof Error ? error.message : String(error) }
    }
    parentPort?.postMessage(answer)
  })
})
