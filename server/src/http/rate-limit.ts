import cluster from 'node:cluster'
import { Redis } from 'ioredis'
import {
  type RateLimiterAbstract,
  RateLimiterCluster,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible'
import type { Config } from '../config.js'
import type { Logger } from '../logger.js'

export interface RateLimitState {
  limit: number
  remaining: number
  /** Whole seconds until the window resets. */
  reset: number
  allowed: boolean
}

const WINDOW_SECONDS = 60

/**
 * A Redis command that takes longer than this fails, and the request is counted per process
 * instead (issue #12: with ioredis's defaults, requests in flight when Redis died waited ~73 s
 * for reconnects). Well under DESIGN's 1 s: a healthy Redis answers in about a millisecond.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 250

/**
 * Fail fast while Redis is down, a circuit breaker in effect: no offline queue (a command
 * while disconnected fails at once), no resending of commands cut off by the disconnect, no
 * retries per request; ioredis keeps reconnecting in the background (at most 2 s apart) and
 * the limiters share counts again from the first command after `ready`.
 */
export const REDIS_OPTIONS = {
  enableOfflineQueue: false,
  autoResendUnfulfilledCommands: false,
  maxRetriesPerRequest: 0,
  commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  connectTimeout: 1000,
  lazyConnect: false,
  retryStrategy: (times: number) => Math.min(times * 100, 2000),
} as const

interface LimiterOptions {
  points: number
  duration: number
  keyPrefix: string
}

/**
 * Under WORKERS=N without Redis: the counters live in the primary process (cluster.ts creates
 * rate-limiter-flexible's cluster master), so a limit holds across workers. Should the primary
 * not answer within a second, the worker counts on its own, as with Redis down.
 */
class ClusterLimiter extends RateLimiterCluster {
  private readonly insurance: RateLimiterMemory

  constructor(options: LimiterOptions) {
    super({ ...options, timeoutMs: 1000 })
    this.insurance = new RateLimiterMemory(options)
  }

  override async consume(key: string | number, points?: number): Promise<RateLimiterRes> {
    try {
      return await super.consume(key, points)
    } catch (error) {
      if (error instanceof RateLimiterRes) throw error
      return this.insurance.consume(key, points)
    }
  }
}

/**
 * Fixed 60-second windows (DESIGN §4), one limiter per distinct per-minute limit so an
 * account's override needs no limiter of its own. Process-local, shared through Redis when
 * REDIS_URL is set, or held by the primary process under WORKERS=N without Redis. While Redis is unreachable each process counts on its own (the
 * limiter's insurance), so an outage neither fails every request nor lifts the limit.
 */
export class RateLimits {
  private readonly limiters = new Map<number, RateLimiterAbstract>()
  private readonly redis: Redis | undefined
  private redisHealthy = true

  constructor(
    private readonly config: Pick<Config, 'redisUrl' | 'rateLimitPerMinute'>,
    logger?: Pick<Logger, 'warn' | 'info'>,
  ) {
    this.redis = config.redisUrl ? new Redis(config.redisUrl, REDIS_OPTIONS) : undefined
    // ioredis reconnects by itself; without a listener its errors are printed to the console.
    // One warning per outage, not one per reconnect attempt.
    this.redis?.on('error', (error: Error) => {
      if (this.redisHealthy) logger?.warn({ err: error }, 'redis unreachable: rate limits are per process')
      this.redisHealthy = false
    })
    this.redis?.on('ready', () => {
      if (!this.redisHealthy) logger?.info('redis reachable again: rate limits are shared')
      this.redisHealthy = true
    })
  }

  get defaultLimit(): number {
    return this.config.rateLimitPerMinute
  }

  private limiter(points: number): RateLimiterAbstract {
    let limiter = this.limiters.get(points)
    if (!limiter) {
      const options = { points, duration: WINDOW_SECONDS, keyPrefix: `qrctl:rl:${points}` }
      limiter = this.redis
        ? new RateLimiterRedis({
            ...options,
            storeClient: this.redis,
            // Not connected: straight to the per-process insurance, without trying Redis.
            rejectIfRedisNotReady: true,
            insuranceLimiter: new RateLimiterMemory(options),
          })
        : cluster.isWorker
          ? new ClusterLimiter(options)
          : new RateLimiterMemory(options)
      this.limiters.set(points, limiter)
    }
    return limiter
  }

  /** Spends one request of `key`'s window. */
  async consume(key: string, limit = this.defaultLimit): Promise<RateLimitState> {
    try {
      const res = await this.limiter(limit).consume(key, 1)
      return {
        limit,
        remaining: res.remainingPoints,
        reset: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
        allowed: true,
      }
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error
      return { limit, remaining: 0, reset: Math.max(1, Math.ceil(error.msBeforeNext / 1000)), allowed: false }
    }
  }

  /**
   * Gives back one request of `key`'s window (the sign-in form spends one per attempt and
   * gives it back when the key was right, so only failures count). Best effort: a refund lost
   * to a Redis or primary hiccup leaves the count one higher, never lower.
   */
  async refund(key: string, limit = this.defaultLimit): Promise<void> {
    try {
      await this.limiter(limit).reward(key, 1)
    } catch {
      // The count stays as it was: the safe side.
    }
  }

  async close(): Promise<void> {
    // quit() fails while disconnected; disconnect() then stops the reconnect attempts.
    if (this.redis) await this.redis.quit().catch(() => this.redis?.disconnect())
  }
}
