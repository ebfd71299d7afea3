import cluster from 'node:cluster'
import { AggregatorRegistry } from 'prom-client'
import type { Logger } from '../logger.js'
import { registry } from './metrics.js'

/**
 * The worker's side of `WORKERS=N` (cluster.ts is the primary's): its number on logs and
 * metrics, and `/metrics` gathered from every worker through the primary.
 */

/** The worker's number, 1…N, and 0 outside a cluster. */
export const workerId: number = cluster.isWorker ? Number(process.env.QRCTL_WORKER_ID ?? 0) : 0

export const METRICS_REQUEST = 'qrctl:metrics-request'
export const METRICS_ANSWER = 'qrctl:metrics-answer'

export interface MetricsRequest {
  type: typeof METRICS_REQUEST
  id: number
}
export interface MetricsAnswer {
  type: typeof METRICS_ANSWER
  id: number
  text?: string
  error?: string
}

/** In a worker: its number on every metric, and its registry where the primary gathers from. */
export function prepareWorker(logger: Logger): void {
  if (!cluster.isWorker) return
  registry.setDefaultLabels({ worker: String(workerId) })
  AggregatorRegistry.setRegistries([registry])
  // Registers the listener that answers the primary's requests for this worker's metrics.
  new AggregatorRegistry()
  process.on('disconnect', () => logger.warn('the primary process is gone'))
}

let nextRequest = 0
const pending = new Map<number, (answer: MetricsAnswer) => void>()

/**
 * `/metrics`: in a worker, every worker's series (each labelled with its `worker`), gathered
 * by the primary; a single server's own otherwise, or when the primary does not answer in time.
 */
export async function metricsText(): Promise<string> {
  if (!cluster.isWorker || !process.send) return registry.metrics()
  if (pending.size === 0) process.on('message', onAnswer)
  const id = nextRequest++
  const answer = await new Promise<MetricsAnswer | undefined>((resolve) => {
    const timer = setTimeout(() => {
      pending.delete(id)
      resolve(undefined)
    }, 3000)
    pending.set(id, (a) => {
      clearTimeout(timer)
      resolve(a)
    })
    process.send?.({ type: METRICS_REQUEST, id } satisfies MetricsRequest)
  })
  if (pending.size === 0) process.off('message', onAnswer)
  return answer?.text ?? registry.metrics()
}

function onAnswer(message: MetricsAnswer): void {
  if (message?.type !== METRICS_ANSWER) return
  const resolve = pending.get(message.id)
  pending.delete(message.id)
  resolve?.(message)
}
