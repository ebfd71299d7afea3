import { isIP } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Worker } from 'node:worker_threads'
import { Agent, request } from 'undici'
import type { Ctx } from '../../context.js'
import { type DatabaseHandle, openDatabase } from '../../db/database.js'
import { mayUseThread, startModuleThread } from '../../lib/thread.js'
import {
  activeWebhookIds,
  type ClaimedDelivery,
  claimDue,
  countEnding,
  recordAttempt,
} from './webhook-deliveries.repository.js'
import { AllowList, guardedLookup, hostOf, mayConnect } from './webhook-destinations.js'
import { fanOutEvents } from './webhook-outbox.js'
import { signatureHeader } from './webhook-signing.js'
import { failPendingDeliveries, updateWebhook } from './webhooks.repository.js'

/** How often each process looks for due deliveries (other processes' events and retries). */
const POLL_MS = 500
/** Attempts in flight per webhook in one process: a slow receiver holds at most these. */
export const PER_WEBHOOK_IN_FLIGHT = 4
/** Attempts in flight in one process, over all webhooks. */
const MAX_IN_FLIGHT = 64
/** Above this share of its time busy, the process has no time for webhooks… */
const BUSY_UTILIZATION = 0.25
/** …beyond this many attempts per poll… */
const BUSY_ATTEMPTS = 8
/**
 * …and fans out one outbox row (an event, or a bundle of up to 200 scans) only when a webhook
 * with room found nothing due, at most this often (FAN_OUT rows a poll when it has the time).
 * A bundle for 10 webhooks is 2,200 rows written on the event loop, while busy polls start 16
 * attempts a second: one bundle keeps a webhook busy for minutes. Fanning one out every busy
 * poll cost about 11 % of the main thread under scan load with 10 webhooks, one every two
 * seconds 1–3 % (issue #18.6); now it happens when the attempts need it.
 */
const BUSY_FAN_OUT_EVERY_MS = 2000
const FAN_OUT = 50
/** The first 1 KiB of an answer is kept in the delivery log (DESIGN §15). */
const KEPT_BODY_BYTES = 1024
/** An outcome the database did not take is stored again after this, doubling up to the max. */
const RECORD_RETRY_MS = 250
const RECORD_RETRY_MAX_MS = 4000

/**
 * Whether this thread's event loop was busy more than BUSY_UTILIZATION of the time since the
 * last call. The request thread's answers how busy the process is serving.
 */
export function busyMeter(): () => boolean {
  let last = performance.eventLoopUtilization()
  return () => {
    const since = performance.eventLoopUtilization(last)
    last = performance.eventLoopUtilization()
    return since.utilization > BUSY_UTILIZATION
  }
}

/** What the sender needs: its own database connection where it runs in a thread. */
export type SenderCtx = Pick<Ctx, 'db' | 'dialect' | 'config' | 'clock' | 'ids' | 'logger'>

/** PostgreSQL connections of the sender's thread: its claims run one at a time, its results a few. */
const SENDER_POOL_SIZE = 4

interface AttemptResult {
  ok: boolean
  responseStatus: number | null
  responseBody: string | null
  durationMs: number
}

export interface WebhookSender {
  /** Looks for due deliveries now rather than at the next poll. */
  wake(): void
  /** Stops claiming and waits for the attempts in flight (each ends within WEBHOOK_TIMEOUT_MS). */
  close(): Promise<void>
}

/**
 * The sender's own database connection. On a SQLite file it never waits for the lock in
 * SQLite: under scan load the writer thread holds it for its batches, and the sender's claims
 * and results waited there up to 10 ms each (1.2 s of a 13 s bench:webhooks round, #18.6); it
 * backs off asynchronously instead. On PostgreSQL a small pool of its own.
 */
export function openSenderDatabase(config: Ctx['config'], logger: Ctx['logger']): DatabaseHandle {
  return config.database.dialect === 'sqlite'
    ? openDatabase(config.database, undefined, undefined, 0)
    : openDatabase(
        config.database,
        (error) => logger.warn({ err: error }, 'webhook sender: database connection lost'),
        SENDER_POOL_SIZE,
      )
}

/**
 * Runs the process's sender where it least slows redirects and API answers (issue #18.6): in a
 * worker thread of its own at the lowest scheduling priority, with its own database connection
 * (webhook-sender.thread.ts). Under CPU contention the kernel runs the request and scan-writer
 * threads first and the sender on what is left (deliveries wait in the outbox meanwhile, never
 * in memory); with a spare core it runs there at full speed. Where `mayUseThread` says no, and
 * where a test hands in a logger of its own (the thread logs through its own), it runs
 * in-process, on the request thread's event loop.
 */
export function runWebhookSender(ctx: Ctx, options: { ownLogger: boolean }): WebhookSender {
  const { database } = ctx.config
  if (options.ownLogger || !mayUseThread(ctx)) {
    // Even in-process, a SQLite file gets the sender's own never-waiting connection.
    const own =
      database.dialect === 'sqlite' && database.filename !== ':memory:'
        ? openSenderDatabase(ctx.config, ctx.logger)
        : undefined
    const sender = startWebhookSender(own ? { ...ctx, db: own.db } : ctx)
    return {
      wake: sender.wake,
      close: async () => {
        await sender.close()
        await own?.close()
      },
    }
  }
  return threadSender(ctx)
}

/** What the sender's thread gets. */
export interface SenderThreadData {
  config: Ctx['config']
}
/** Posted by the sender's thread: once started, and once closed after a `close` message. */
export type SenderThreadMessage = { started: true } | { closed: true }
/** Posted to the sender's thread; `busy`, every poll, is how busy the request thread is. */
export type SenderThreadRequest = 'wake' | 'close' | { busy: boolean }

/** How much longer than one attempt's timeout closing waits for the sender's thread. */
const CLOSE_GRACE_MS = 2000

/** How often a process without its sender's thread looks for an active webhook. */
const START_LOOK_MS = 2000

/** After the sender's thread died (it should not), a new one starts after this long. */
const THREAD_RESTART_MS = 1000

function threadSender(ctx: Ctx): WebhookSender {
  let thread: Worker | undefined
  let closing = false
  let closed: Promise<void> = Promise.resolve()
  const start = () => {
    const started = startModuleThread(import.meta.url, 'webhook-sender.thread', {
      config: ctx.config,
    } satisfies SenderThreadData)
    // The thread never keeps the process alive by itself: the server does while it serves.
    started.unref()
    closed = new Promise<void>((resolve) => {
      started.on('message', (message: SenderThreadMessage) => {
        if ('closed' in message) resolve()
      })
      started.once('exit', (code) => {
        resolve()
        if (thread === started) thread = undefined
        if (closing) return
        // What it was sending is leased in the outbox; the lease runs out and it is sent again.
        ctx.logger.warn({ code }, 'the webhook sender thread exited; starting another')
        setTimeout(() => closing || thread || start(), THREAD_RESTART_MS).unref()
      })
    })
    started.on('error', (error) => ctx.logger.warn({ err: error }, 'the webhook sender thread failed'))
    thread = started
  }
  // The thread starts once an active webhook exists: until then it would have nothing to send
  // (events are stored only for webhooks that want them), and a server without webhooks, as
  // most are, spends neither its start-up nor its connections.
  let looking = false
  const look = () => {
    if (thread || closing || looking) return
    looking = true
    activeWebhookIds(ctx.db, 1)
      .then((any) => {
        if (any.length > 0 && !thread && !closing) start()
      })
      .catch((error: unknown) => ctx.logger.warn({ err: error }, 'looking for webhooks failed'))
      .finally(() => {
        looking = false
      })
  }
  look()
  const lookingAgain = setInterval(look, START_LOOK_MS)
  lookingAgain.unref()
  // The thread's own event loop is idle while this one serves: it is told how busy this one is.
  const meter = busyMeter()
  const reporting = setInterval(
    () => thread?.postMessage({ busy: meter() } satisfies SenderThreadRequest),
    POLL_MS,
  )
  reporting.unref()
  return {
    wake: () => {
      if (thread) thread.postMessage('wake' satisfies SenderThreadRequest)
      else look()
    },
    close: async () => {
      closing = true
      clearInterval(lookingAgain)
      clearInterval(reporting)
      const running = thread
      if (!running) return
      // Attempts in flight end first (each within WEBHOOK_TIMEOUT_MS), as in-process. At nice 19
      // on a saturated machine the thread may get the core seldom, so shutdown waits for it no
      // longer than that: what it had claimed is leased in the outbox and is sent again.
      running.ref()
      running.postMessage('close' satisfies SenderThreadRequest)
      let waited: NodeJS.Timeout | undefined
      await Promise.race([
        closed,
        new Promise<void>((enough) => {
          waited = setTimeout(enough, ctx.config.webhookTimeoutMs + CLOSE_GRACE_MS)
        }),
      ])
      clearTimeout(waited)
      await running.terminate()
    },
  }
}

/**
 * The outbox's sender, one per server process: a loop that leases due deliveries, POSTs them
 * as Standard Webhooks v1 and records each outcome. Everything waiting is in the database,
 * never in memory, so a slow or dead receiver costs at most PER_WEBHOOK_IN_FLIGHT sockets and
 * a crash loses nothing: a lease held by a dead process runs out and another attempt follows.
 */
export function startWebhookSender(
  ctx: SenderCtx,
  /** Whether the process is busy serving: the request thread's `busyMeter`. */
  isBusy: () => boolean = busyMeter(),
): WebhookSender {
  const allow = new AllowList(ctx.config.webhookAllowHosts)
  const timeoutMs = ctx.config.webhookTimeoutMs
  // A lease outlives any attempt: claimed rows start within one timeout, then take at most one.
  const leaseMs = 2 * timeoutMs + 30_000
  const agent = new Agent({
    connect: { lookup: guardedLookup(allow), timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connections: PER_WEBHOOK_IN_FLIGHT,
  })
  const inFlight = new Map<string, number>()
  const attempts = new Set<Promise<void>>()
  let total = 0
  let closed = false
  let ticking: Promise<void> | undefined
  let again = false
  let busy = false
  let lastBusyFanOut = 0
  /** Whether the last look found a webhook with room and nothing due for it. */
  let starved = true
  /**
   * The webhook the last look's budget ran out after: the next look starts with the one after
   * it. While the process is busy a look starts only BUSY_ATTEMPTS, which the first two
   * webhooks with a backlog would take every time; taking turns, every webhook's backlog moves.
   */
  let resumeAfter: string | undefined

  /**
   * Redirects and API answers come first (issue #18.6): while the process is busy (its request
   * thread's event loop over BUSY_UTILIZATION since the last look) the sender starts at most
   * BUSY_ATTEMPTS per poll and waits for the next poll. What it does not send waits in the
   * outbox, not in memory.
   */
  const budget = () => (isBusy() ? BUSY_ATTEMPTS : MAX_IN_FLIGHT)

  const tick = async () => {
    if (closed) return
    const allowed = budget()
    busy = allowed < MAX_IN_FLIGHT
    // Events first: each becomes one delivery per webhook that wants it.
    if (!busy) {
      // A full take of single events: more may wait, look again at once. A bundle ends a take
      // and waits for the next poll, so the scan writer's thread finds the write lock free
      // between takes (taken back to back, the thread waited out its 3 s and failed).
      if ((await fanOutEvents(ctx, FAN_OUT)) === FAN_OUT) again = true
    } else if (starved && performance.now() - lastBusyFanOut >= BUSY_FAN_OUT_EVERY_MS) {
      lastBusyFanOut = performance.now()
      await fanOutEvents(ctx, 1)
    }
    let left = Math.min(allowed, MAX_IN_FLIGHT - total)
    if (left <= 0) return
    const now = ctx.clock.now()
    const leaseUntil = new Date(now.getTime() + leaseMs).toISOString()
    starved = false
    const ids = await activeWebhookIds(ctx.db)
    const after = resumeAfter
    const first = after === undefined ? 0 : ids.findIndex((id) => id > after)
    resumeAfter = undefined
    for (const webhookId of first > 0 ? [...ids.slice(first), ...ids.slice(0, first)] : ids) {
      const room = Math.min(left, PER_WEBHOOK_IN_FLIGHT - (inFlight.get(webhookId) ?? 0))
      if (closed || left <= 0) break
      if (room <= 0) continue
      const claimed = await claimDue(ctx.db, ctx.dialect, webhookId, {
        now: now.toISOString(),
        leaseUntil,
        limit: room,
      })
      if (claimed.length < room) starved = true
      left -= claimed.length
      for (const delivery of claimed) start(delivery, now.getTime() + leaseMs)
      if (left <= 0) resumeAfter = webhookId
    }
  }

  const start = (delivery: ClaimedDelivery, leaseEnds: number) => {
    inFlight.set(delivery.webhookId, (inFlight.get(delivery.webhookId) ?? 0) + 1)
    total++
    const running = attemptAndRecord(delivery, leaseEnds).finally(() => {
      attempts.delete(running)
      total--
      const left = (inFlight.get(delivery.webhookId) ?? 1) - 1
      if (left > 0) inFlight.set(delivery.webhookId, left)
      else inFlight.delete(delivery.webhookId)
      // A free slot is used at once, unless the process is busy: then at the next poll.
      if (!busy) wake()
    })
    attempts.add(running)
  }

  const wake = () => {
    if (closed) return
    if (ticking) {
      again = true
      return
    }
    ticking = tick()
      .catch((error: unknown) => ctx.logger.warn({ err: error }, 'claiming webhook deliveries failed'))
      .finally(() => {
        ticking = undefined
        if (again) {
          again = false
          setImmediate(wake)
        }
      })
  }

  /**
   * The outcome, once known, is stored even when the database cannot take it at once (its pool
   * out of connections while this thread waits for a loaded core, a restart): it is stored again
   * while the lease holds, and keeps its slot meanwhile. Given up, the lease runs out and the
   * attempt is made again: at least once, never lost, but the receiver gets it twice.
   */
  const attemptAndRecord = async (delivery: ClaimedDelivery, leaseEnds: number) => {
    const startedAt = ctx.clock.now()
    const result = await attempt(delivery, startedAt)
    for (let wait = RECORD_RETRY_MS; ; wait = Math.min(2 * wait, RECORD_RETRY_MAX_MS)) {
      try {
        await finish(delivery, result, startedAt)
        return
      } catch (error) {
        // The last try ends well before the lease: another process may claim it from then on.
        if (closed || ctx.clock.now().getTime() + wait + timeoutMs >= leaseEnds) {
          ctx.logger.warn({ err: error, deliveryId: delivery.id }, 'recording a webhook attempt failed')
          return
        }
        await sleep(wait)
      }
    }
  }

  const attempt = async (d: ClaimedDelivery, startedAt: Date): Promise<AttemptResult> => {
    const began = performance.now()
    const elapsed = () => Math.round(performance.now() - began)
    const host = hostOf(d.url)
    // An IP literal never passes through the lookup: check it here.
    if (isIP(host) !== 0 && !allow.hasName(host) && !mayConnect(host, allow))
      return {
        ok: false,
        responseStatus: null,
        responseBody: `Refused: ${host} is not a public address`,
        durationMs: 0,
      }
    const timestamp = Math.floor(startedAt.getTime() / 1000)
    const secrets = [d.secret]
    if (d.previousSecret && d.previousSecretUntil && d.previousSecretUntil > startedAt.toISOString())
      secrets.push(d.previousSecret)
    const signal = AbortSignal.timeout(timeoutMs)
    try {
      const res = await request(d.url, {
        method: 'POST',
        dispatcher: agent,
        signal,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'qrctl-webhooks/1.1',
          'webhook-id': d.eventId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(secrets, d.eventId, timestamp, d.body),
        },
        body: d.body,
      })
      // The whole answer must arrive within the timeout; only its first 1 KiB is kept.
      const kept: Buffer[] = []
      let keptBytes = 0
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        if (keptBytes < KEPT_BODY_BYTES) {
          kept.push(chunk.subarray(0, KEPT_BODY_BYTES - keptBytes))
          keptBytes += Math.min(chunk.length, KEPT_BODY_BYTES - keptBytes)
        }
      }
      const ok = res.statusCode >= 200 && res.statusCode < 300
      return {
        ok,
        responseStatus: res.statusCode,
        responseBody: Buffer.concat(kept).toString('utf8'),
        durationMs: elapsed(),
      }
    } catch (error) {
      return {
        ok: false,
        responseStatus: null,
        responseBody: describeFailure(error, timeoutMs),
        durationMs: elapsed(),
      }
    }
  }

  const finish = async (d: ClaimedDelivery, r: AttemptResult, startedAt: Date) => {
    const attempts = d.attempts + 1
    const gone = r.responseStatus === 410
    const ended = r.ok || gone || attempts >= d.maxAttempts
    const delays = ctx.config.webhookRetryDelays
    const delaySeconds = delays[Math.min(attempts - 1, delays.length - 1)] ?? 0
    const nextAttemptAt = ended
      ? null
      : new Date(ctx.clock.now().getTime() + delaySeconds * 1000).toISOString()
    await ctx.db.transaction().execute(async (trx) => {
      await recordAttempt(trx, d.id, {
        status: r.ok ? 'succeeded' : ended ? 'failed' : 'pending',
        attempts,
        nextAttemptAt,
        lastAttemptAt: startedAt.toISOString(),
        responseStatus: r.responseStatus,
        responseBody: r.responseBody,
        durationMs: r.durationMs,
      })
      if (!ended) return
      const failures = await countEnding(trx, d.webhookId, !r.ok)
      const reason = gone
        ? 'gone'
        : !r.ok && failures >= ctx.config.webhookFailureLimit
          ? 'failing'
          : undefined
      if (!reason) return
      await updateWebhook(trx, d.webhookId, {
        isActive: false,
        disabledReason: reason,
        updatedAt: ctx.clock.now().toISOString(),
      })
      await failPendingDeliveries(trx, d.webhookId, `Not sent: the webhook was disabled (${reason})`)
      ctx.logger.warn({ webhookId: d.webhookId, reason }, 'webhook disabled')
    })
  }

  const timer = setInterval(wake, POLL_MS)
  timer.unref()
  wake()

  return {
    wake,
    close: async () => {
      closed = true
      clearInterval(timer)
      await ticking
      await Promise.allSettled([...attempts])
      await agent.close()
    },
  }
}

/** Why an attempt got no answer, for the delivery log: never a stack. */
function describeFailure(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; code?: string; cause?: { code?: string }; message?: string }
  if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT')
    return `No complete answer within ${timeoutMs} ms`
  const code = e.code ?? e.cause?.code
  if (code === 'EREFUSEDADDRESS')
    return `Refused: ${e.message ?? 'the host resolves to addresses that are not public'}`
  if (code === 'ECONNREFUSED') return 'Connection refused'
  if (code === 'ENOTFOUND') return 'The host could not be resolved'
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return `No connection within ${timeoutMs} ms`
  return `Request failed${code ? ` (${code})` : ''}`
}
