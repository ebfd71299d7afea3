import { parentPort, workerData } from 'node:worker_threads'
import { systemClock } from '../../lib/clock.js'
import { randomIds } from '../../lib/ids.js'
import { lowerThreadPriority } from '../../lib/thread.js'
import { createLogger } from '../../logger.js'
import {
  openSenderDatabase,
  type SenderThreadData,
  type SenderThreadMessage,
  type SenderThreadRequest,
  startWebhookSender,
} from './webhook-sender.js'

/**
 * The webhook sender's thread (`runWebhookSender`): the lowest scheduling priority first, then
 * its own database connection and the sender's loop, until the server asks it to close.
 */
const { config } = workerData as SenderThreadData
const logger = createLogger(config)
if (!lowerThreadPriority()) logger.debug('the webhook sender thread keeps the normal priority')
const handle = openSenderDatabase(config, logger)
/** How busy the request thread is, as it last said. */
let busy = false
const sender = startWebhookSender(
  { db: handle.db, dialect: handle.dialect, config, clock: systemClock, ids: randomIds, logger },
  () => busy,
)
parentPort?.postMessage({ started: true } satisfies SenderThreadMessage)

parentPort?.on('message', (request: SenderThreadRequest) => {
  if (typeof request === 'object') {
    busy = request.busy
    return
  }
  if (request === 'wake') return sender.wake()
  void sender
    .close()
    .then(() => handle.close())
    .catch((error: unknown) => logger.warn({ err: error }, 'closing the webhook sender failed'))
    .finally(() => parentPort?.postMessage({ closed: true } satisfies SenderThreadMessage))
})
