import { parentPort, workerData } from 'node:worker_threads'
import { openDatabase } from '../../db/database.js'
import type { WriteAnswer, WriteRequest, WriterData } from './scan-writer.js'
import { writeScans } from './scans.service.js'
import { SeenVisitors } from './seen-visitors.js'

/**
 * The scan writer thread (scan-writer.ts): its own connection to the SQLite file, one batch at
 * a time, in the order posted. Waiting for a lock another process holds blocks this thread
 * only, never the main thread's requests.
 */
const { config } = workerData as WriterData
const handle = openDatabase(config.database)
const ctx = { db: handle.db, dialect: handle.dialect }
const seen = new SeenVisitors()
parentPort?.postMessage({ ready: true } satisfies WriteAnswer)
let queue = Promise.resolve()

parentPort?.on('message', (request: WriteRequest) => {
  queue = queue.then(async () => {
    let answer: WriteAnswer
    try {
      answer = { id: request.id, written: await writeScans(ctx, request.events, seen) }
    } catch (error) {
      answer = { id: request.id, error: error instanceof Error ? error.message : String(error) }
    }
    parentPort?.postMessage(answer)
  })
})
