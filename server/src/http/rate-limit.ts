import { Redis } from 'ioredis'
import {
  type RateLimiterAbstract,
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
 * Fixed 60-second windows (DESIGN §4), one limiter per distinct per-minute limit so an
 * account's override needs no limiter of its own. Process-local, or shared through Redis
 * when REDIS_URL is set. While Redis is unreachable each process counts on its own (the
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
    this.redis = config.redisUrl
      ? new Redis(config.redisUrl, { enableOfflineQueue: false, lazyConnect: false })
      : undefined
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
            insuranceLimiter: new RateLimiterMemory(options),
          })
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

  async close(): Promise<void> {
    // quit() fails while disconnected; disconnect() then stops the reconnect attempts.
    if (this.redis) await this.redis.quit().catch(() => this.redis?.disconnect())
  }
}
