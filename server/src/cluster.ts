import cluster, { type Worker } from 'node:cluster'
import type { ApiKeyWithSecret } from '@qrctl/contract'
import { AggregatorRegistry } from 'prom-client'
import { RateLimiterClusterMaster } from 'rate-limiter-flexible'
import type { Config } from './config.js'
import type { Ctx } from './context.js'
import { migrateToLatest, openDatabase } from './db/database.js'
import { METRICS_ANSWER, METRICS_REQUEST, type MetricsAnswer, type MetricsRequest } from './lib/worker.js'
import { createLogger } from './logger.js'
import * as accounts from './modules/accounts/accounts.service.js'
import { createLoginLink } from './modules/sessions/sessions.service.js'
import { createContext } from './server.js'

/**
 * `WORKERS=N` (DESIGN §18): one primary process that serves nothing itself and N worker
 * processes that share the port through node:cluster (round-robin on Linux). The primary
 * migrates the database and creates the first account before any worker starts, so workers
 * never race for either; it replaces a worker that dies, gathers every worker's metrics for
 * `/metrics`, and holds the rate-limit counters when there is no Redis (rate-limiter-flexible's
 * cluster limiter), so limits hold across workers either way. On SIGTERM or SIGINT it passes
 * the signal to every worker, each drains as a single server does (§2), and it exits once all
 * have exited.
 */

/** What the first start prints, once: the first key and a one-time dashboard sign-in link (DESIGN §2, §19). */
export interface FirstAccount {
  key: ApiKeyWithSecret
  loginLink: string
}

/** On an empty database: the first account, its key and a sign-in link; otherwise undefined. */
export async function seedFirstAccount(ctx: Ctx): Promise<FirstAccount | undefined> {
  const first = await accounts.seedFirstAccount(ctx)
  if (!first) return undefined
  const link = await createLoginLink(ctx, first.account.id)
  return { key: first.key, loginLink: link.url }
}

export interface PrimaryHooks {
  /** Every worker listens: say so, with the first key and sign-in link when there are. */
  onListening(first: FirstAccount | undefined): void
}

export async function runPrimary(config: Config, hooks: PrimaryHooks): Promise<void> {
  const logger = createLogger(config).child({ role: 'primary' })
  const handle = openDatabase(config.database, (error) =>
    logger.warn({ err: error }, 'database connection lost'),
  )
  let first: FirstAccount | undefined
  try {
    await migrateToLatest(handle.db)
    first = await seedFirstAccount(createContext(config, handle, { logger }))
  } finally {
    await handle.close()
  }

  // Created before the first fork: each answers its workers over the IPC channel.
  if (!config.redisUrl) new RateLimiterClusterMaster()
  const metrics = new AggregatorRegistry()

  const workers = new Map<number, Worker>()
  let stopping = false
  let listening = 0
  let announced = false

  const fork = (id: number) => {
    const worker = cluster.fork({ QRCTL_WORKER_ID: String(id) })
    workers.set(id, worker)
    worker.on('message', (message: MetricsRequest) => {
      if (message?.type !== METRICS_REQUEST) return
      metrics.clusterMetrics().then(
        (text) => worker.send({ type: METRICS_ANSWER, id: message.id, text } satisfies MetricsAnswer),
        (error: Error) => worker.send({ type: METRICS_ANSWER, id: message.id, error: error.message }),
      )
    })
    worker.once('listening', () => {
      logger.info({ worker: id, pid: worker.process.pid }, 'worker listening')
      listening++
      if (!announced && listening >= config.workers) {
        announced = true
        hooks.onListening(first)
      }
    })
    worker.once('exit', (code, signal) => {
      if (workers.get(id) === worker) workers.delete(id)
      if (stopping) return
      logger.error({ worker: id, pid: worker.process.pid, code, signal }, 'worker died; starting a new one')
      fork(id)
    })
  }
  for (let id = 1; id <= config.workers; id++) fork(id)

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return
    stopping = true
    logger.info({ signal, workers: workers.size }, 'shutting down')
    const exits = [...workers.values()].map(
      (worker) =>
        new Promise<number>((resolve) => {
          if (worker.isDead()) return resolve(worker.process.exitCode ?? 1)
          worker.once('exit', (code) => resolve(code ?? 1))
          worker.process.kill(signal)
        }),
    )
    // Each worker drains within SHUTDOWN_TIMEOUT_MS and writes its scans within as long again.
    const deadline = setTimeout(
      () => {
        logger.error('workers did not stop in time; killing them')
        for (const worker of workers.values()) worker.process.kill('SIGKILL')
      },
      2 * config.shutdownTimeoutMs + 5000,
    )
    deadline.unref()
    void Promise.all(exits).then((codes) => {
      clearTimeout(deadline)
      process.exit(codes.every((code) => code === 0) ? 0 : 1)
    })
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
}
