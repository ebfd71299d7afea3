import { isIP } from 'node:net'
import { availableParallelism } from 'node:os'
import { z } from 'zod'

/** A WEBHOOK_ALLOW_HOSTS entry: a host name, an IP address, or an IP/prefix within range. */
function isAllowEntry(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/')
  if (rest.length > 0) return false
  const family = isIP(address)
  if (prefix === undefined) return family !== 0 || /^[a-z0-9.-]+$/.test(address)
  const bits = Number(prefix)
  return family !== 0 && /^\d+$/.test(prefix) && bits <= (family === 4 ? 32 : 128)
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z.string().min(1).default('file:./data/qrctl.db'),
  PUBLIC_BASE_URL: z.string().url().optional(),
  REDIS_URL: z.string().url().optional(),
  GEOIP_DB: z.string().min(1).optional(),
  VISITOR_SECRET: z.string().min(16, 'VISITOR_SECRET must be at least 16 characters').optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  // off/false/0: no proxy; on/true: one proxy hop (a load balancer); N: N hops.
  TRUST_PROXY: z
    .string()
    .default('off')
    .transform((v) => ({ off: '0', false: '0', on: '1', true: '1' })[v.toLowerCase()] ?? v)
    .pipe(
      z.coerce
        .number({ message: 'TRUST_PROXY must be off, on, or a number of proxy hops' })
        .int()
        .min(0)
        .max(10),
    ),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(100),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  IDEMPOTENCY_PENDING_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  // DESIGN §18: N server processes on one port (node:cluster), or `auto`: one per core.
  WORKERS: z
    .string()
    .default('1')
    .transform((v) => (v.trim().toLowerCase() === 'auto' ? String(availableParallelism()) : v))
    .pipe(z.coerce.number({ message: 'WORKERS must be a number of processes or auto' }).int().min(1).max(64)),
  // DESIGN §15: host names, IPs or CIDRs a webhook may reach although they are not public.
  WEBHOOK_ALLOW_HOSTS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter((h) => h.length > 0),
    )
    .refine(
      (entries) => entries.every(isAllowEntry),
      'WEBHOOK_ALLOW_HOSTS must be comma-separated host names, IP addresses or CIDRs (10.0.0.0/8)',
    ),
  WEBHOOK_RETRY_DELAYS: z
    .string()
    .default('5,300,1800,7200,18000,36000,36000')
    .transform((v) => (v.trim() === '' ? [] : v.split(',').map((d) => Number(d.trim()))))
    .refine(
      (delays) => delays.length <= 20 && delays.every((d) => Number.isFinite(d) && d >= 0 && d <= 604_800),
      'WEBHOOK_RETRY_DELAYS must be up to 20 comma-separated delays in seconds (0–604800)',
    ),
  WEBHOOK_FAILURE_LIMIT: z.coerce.number().int().min(1).max(10_000).default(20),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  // DESIGN §19: a dashboard session ends after this long unused, and this long after sign-in
  // whatever happens (at most 400 days, the longest cookie lifetime browsers keep).
  SESSION_IDLE_SECONDS: z.coerce.number().int().min(1).max(34_560_000).default(43_200),
  SESSION_MAX_SECONDS: z.coerce.number().int().min(1).max(34_560_000).default(604_800),
})

export type DatabaseTarget =
  | { dialect: 'sqlite'; filename: string }
  | { dialect: 'postgres'; connectionString: string }

export interface Config {
  port: number
  host: string
  database: DatabaseTarget
  /** No trailing slash; short links, asset and showcase URLs start with it. */
  publicBaseUrl: string
  redisUrl: string | undefined
  geoipDb: string | undefined
  visitorSecret: string | undefined
  logLevel: (typeof LOG_LEVELS)[number]
  /** How many proxies in front of the server to trust for X-Forwarded-For; 0 = none. */
  trustProxyHops: number
  rateLimitPerMinute: number
  /** On SIGTERM/SIGINT, how long requests already received may take before their connections are cut. */
  shutdownTimeoutMs: number
  /**
   * An Idempotency-Key request still pending after this long was cut off (its process died
   * before committing); a retry with the key then runs it again. Until then a retry is 409.
   */
  idempotencyPendingMs: number
  /** PostgreSQL connections of the whole server: under WORKERS=N each worker opens its share. */
  databasePoolSize: number
  /** Server processes sharing the port (`WORKERS`, `auto` = one per core); 1 = no cluster. */
  workers: number
  /** Webhook destinations allowed although not public: host names, IPs or CIDRs, lower case. */
  webhookAllowHosts: string[]
  /** Seconds before each retry of a failed delivery: at most 1 + length attempts. */
  webhookRetryDelays: number[]
  /** Deliveries in a row that ended failed before a webhook is disabled (`failing`). */
  webhookFailureLimit: number
  /** An attempt not answered in full within this long has failed. */
  webhookTimeoutMs: number
  /** A dashboard session unused this long has ended (`SESSION_IDLE_SECONDS`). */
  sessionIdleSeconds: number
  /** A dashboard session ends this long after sign-in, used or not (`SESSION_MAX_SECONDS`). */
  sessionMaxSeconds: number
}

/** PostgreSQL connections one server process opens: its share of DATABASE_POOL_SIZE, at least 2. */
export const processPoolSize = (config: Pick<Config, 'databasePoolSize' | 'workers'>) =>
  Math.max(2, Math.ceil(config.databasePoolSize / config.workers))

export function parseDatabaseUrl(url: string): DatabaseTarget {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://'))
    return { dialect: 'postgres', connectionString: url }
  if (url === ':memory:' || url === 'file::memory:') return { dialect: 'sqlite', filename: ':memory:' }
  if (url.startsWith('file:')) return { dialect: 'sqlite', filename: url.slice('file:'.length) }
  throw new Error(`DATABASE_URL must start with file: or postgres:// (got ${url.split(':')[0]}:…)`)
}

/**
 * The one place that reads the environment (DESIGN §2). Everything else is handed the
 * result. Throws with every invalid variable named.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(env)
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`)
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`)
  }
  const e = parsed.data
  return {
    port: e.PORT,
    host: e.HOST,
    database: parseDatabaseUrl(e.DATABASE_URL),
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    redisUrl: e.REDIS_URL,
    geoipDb: e.GEOIP_DB,
    visitorSecret: e.VISITOR_SECRET,
    logLevel: e.LOG_LEVEL,
    trustProxyHops: e.TRUST_PROXY,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    idempotencyPendingMs: e.IDEMPOTENCY_PENDING_SECONDS * 1000,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    workers: e.WORKERS,
    webhookAllowHosts: e.WEBHOOK_ALLOW_HOSTS,
    webhookRetryDelays: e.WEBHOOK_RETRY_DELAYS,
    webhookFailureLimit: e.WEBHOOK_FAILURE_LIMIT,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    sessionIdleSeconds: e.SESSION_IDLE_SECONDS,
    sessionMaxSeconds: e.SESSION_MAX_SECONDS,
  }
}
