import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { availableParallelism } from 'node:os'
import { createDecodeCheckPool } from '@qrctl/render/check'
import { type Config, processPoolSize } from './config.js'
import type { Ctx } from './context.js'
import { type DatabaseHandle, migrateToLatest, openDatabase } from './db/database.js'
import { createHotLookups } from './db/hot-lookup.js'
import { openReader } from './db/reader.js'
import { createApp } from './http/app.js'
import { createGate } from './http/gate.js'
import { createImagePath } from './http/image-path.js'
import { RateLimits } from './http/rate-limit.js'
import { createRedirectPath } from './http/redirect-path.js'
import { createDrainer, type Drainer } from './http/shutdown.js'
import { scheduleHousekeeping } from './jobs.js'
import { type Clock, systemClock } from './lib/clock.js'
import { type Ids, randomIds } from './lib/ids.js'
import { prepareWorker } from './lib/worker.js'
import { createLogger, type Logger } from './logger.js'
import type { ScanBufferOptions } from './modules/scans/scan-buffer.js'
import { type ScanRecorder, startScanRecorder } from './modules/scans/scan-recorder.js'
import { runWebhookSender } from './modules/webhooks/webhook-sender.js'

export interface RunningServer {
  ctx: Ctx
  server: Server
  /** `http://127.0.0.1:PORT` as actually bound. */
  url: string
  /** The scan buffer: `flush()` writes what waits now (tests use it instead of waiting a second). */
  scans: Pick<ScanRecorder, 'flush' | 'pending'>
  /**
   * Stops accepting, answers every request already received (telling keep-alive clients to
   * close), within config.shutdownTimeoutMs, then flushes buffers and closes the database.
   */
  close(): Promise<void>
}

export interface StartOptions {
  clock?: Clock
  ids?: Ids
  logger?: Logger
  /** Batch size and interval of scan writes (defaults: 5,000 scans, 1 s). */
  scanBuffer?: Partial<ScanBufferOptions>
}

export function createContext(config: Config, handle: DatabaseHandle, options: StartOptions = {}): Ctx {
  const logger = options.logger ?? createLogger(config)
  return {
    db: handle.db,
    dialect: handle.dialect,
    config,
    clock: options.clock ?? systemClock,
    ids: options.ids ?? randomIds,
    logger,
    // Threads start with the first check and end after a minute idle; under WORKERS=N each
    // process takes its share of the cores. At most 4: each holds ~80 MB while it lives, and 4
    // check a batch of 100 styled codes in about 2 s.
    checks: createDecodeCheckPool({
      size: Math.min(4, Math.max(1, Math.floor(availableParallelism() / config.workers))),
      onError: (error) => logger.warn({ err: error }, 'a decode-check thread failed'),
    }),
  }
}

/** Opens and migrates the database, then serves the app on config.host:config.port (0 = any free port). */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config)
  prepareWorker(logger)
  const handle = openDatabase(
    config.database,
    (error) => logger.warn({ err: error }, 'database connection lost'),
    processPoolSize(config),
  )
  await migrateToLatest(handle.db)
  const ctx = createContext(config, handle, { ...options, logger })
  const limits = new RateLimits(config, logger)
  const stopHousekeeping = scheduleHousekeeping(ctx)
  const scans = await startScanRecorder(ctx, options.scanBuffer)
  // The outbox's sender: a low-priority thread of its own (webhook-sender.ts), or in-process
  // where a test's clock, ids or logger cannot cross into a thread.
  const webhooks = runWebhookSender(ctx, { ownLogger: options.logger !== undefined })
  const reader = openReader(config.database)
  const lookups = createHotLookups(reader)
  const gate = createGate(ctx, limits)
  const redirects = createRedirectPath(ctx, scans, lookups)
  const images = createImagePath(ctx, gate, lookups)
  const app = createApp({ ctx, gate, limits })
  let drainer!: Drainer
  const server = await new Promise<Server>((resolve, reject) => {
    // Every public path (app.ts lists them): short links and API images on the bare request,
    // ahead of Express (http/redirect-path.ts, http/image-path.ts); everything else in the app.
    // Both fast paths run the app's own steps (http/request.ts, gate.ts, image-writer.ts).
    const s = createServer((req, res) => {
      if (drainer.isDraining) res.setHeader('Connection', 'close')
      if (redirects.handle(req, res) || images.handle(req, res, () => app(req, res))) return
      app(req, res)
    })
    drainer = createDrainer(s)
    s.listen(config.port, config.host, () => resolve(s))
    s.once('error', reject)
  })
  server.keepAliveTimeout = 65_000
  const { port } = server.address() as AddressInfo
  let closing: Promise<void> | undefined
  const close = () => {
    closing ??= (async () => {
      stopHousekeeping()
      // Every request already received is answered; keep-alive clients are told to go.
      const { forced } = await drainer.drain(config.shutdownTimeoutMs)
      if (forced > 0)
        logger.warn(
          { connections: forced, timeoutMs: config.shutdownTimeoutMs },
          'shutdown cut open connections',
        )
      // Every answered scan is in the buffer now; write it before the database closes.
      await scans.close()
      // Attempts in flight end (each within WEBHOOK_TIMEOUT_MS); what waits stays in the outbox.
      await webhooks.close()
      reader?.close()
      await ctx.checks.close()
      await limits.close()
      await handle.close()
    })()
    return closing
  }
  return { ctx, server, url: `http://127.0.0.1:${port}`, scans, close }
}
