import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  accounts,
  type Clock,
  type Ctx,
  loadConfig,
  type RunningServer,
  type StartOptions,
  startServer as start,
} from '@qrctl/server'
import pg from 'pg'
import { missing, requireAll } from '../../vitest.requirements.js'

export type Dialect = 'sqlite' | 'postgres'
export interface TestAccount {
  accountId: string
  apiKey: string
}
export interface TestServer extends TestAccount {
  /** e.g. http://127.0.0.1:54321 (no /api/v1) */
  baseUrl: string
  dialect: Dialect
  /** The database this server uses, so a second server can share it. */
  databaseUrl: string
  ctx: Ctx
  running: RunningServer
  createAccount(opts?: {
    plan?: 'pro' | 'free'
    status?: 'active' | 'past_due' | 'canceled'
    rateLimitPerMinute?: number
    scope?: 'read' | 'write' | 'read_write'
  }): Promise<TestAccount>
  close(): Promise<void>
}

/** The dialects a suite runs on: SQLite always, PostgreSQL too when TEST_DATABASE_URL is set. */
export function dialects(): Dialect[] {
  const only = process.env.TEST_DIALECTS?.split(',').map((d) => d.trim())
  if (only && requireAll) throw new Error('QRCTL_REQUIRE_ALL_TESTS=1 runs every dialect: unset TEST_DIALECTS')
  // Without a database to run them on, the PostgreSQL runs would test nothing: fail instead.
  if (requireAll && !process.env.TEST_DATABASE_URL)
    throw new Error('QRCTL_REQUIRE_ALL_TESTS=1 needs TEST_DATABASE_URL=postgres://… for the PostgreSQL runs')
  const hasPostgres = !missing(
    'PostgreSQL',
    Boolean(process.env.TEST_DATABASE_URL),
    'these tests ran on SQLite only; set TEST_DATABASE_URL=postgres://user@127.0.0.1:5432/test to run them on PostgreSQL too (.ci/run does)',
  )
  const all: Dialect[] = hasPostgres ? ['sqlite', 'postgres'] : ['sqlite']
  return only ? all.filter((d) => only.includes(d)) : all
}

/**
 * A port free now, for a server process the test starts. Taken below the kernel's ephemeral
 * range (net.ipv4.ip_local_port_range, 32768–60999 by default): a port handed out by
 * `listen(0)` and closed again is soon reused as the local port of some client connection
 * (the suite opens thousands), and the server then fails to start with EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000)
    if (await canListen(port)) return port
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer()
    s.once('error', () => resolve(false))
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)))
  })
}

/** A fresh PostgreSQL database (on TEST_DATABASE_URL's server), dropped again by `drop`. */
export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL as string
  const name = `qrctl_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    },
  }
}

/**
 * A real server on an ephemeral port over a fresh database (a temp SQLite file, or a fresh
 * PostgreSQL database), with one paid account and its read_write key.
 */
export async function startServer(
  opts: {
    env?: Record<string, string>
    clock?: Clock
    /** Replaces the server's random ids (short codes, UUIDs, key secrets). */
    ids?: StartOptions['ids']
    dialect?: Dialect
    logger?: StartOptions['logger']
  } = {},
): Promise<TestServer> {
  const dialect = opts.dialect ?? 'sqlite'
  const dir = mkdtempSync(join(tmpdir(), 'qrctl-test-'))
  const pgDb = dialect === 'postgres' && !opts.env?.DATABASE_URL ? await createPostgresDatabase() : undefined
  const port = await freePort()
  const databaseUrl = opts.env?.DATABASE_URL ?? (pgDb ? pgDb.url : `file:${join(dir, 'qrctl.db')}`)
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    ...opts.env,
    DATABASE_URL: databaseUrl,
  })
  const running = await start(config, {
    ...(opts.clock && { clock: opts.clock }),
    ...(opts.ids && { ids: opts.ids }),
    ...(opts.logger && { logger: opts.logger }),
  })
  const ctx = running.ctx
  const createAccount: TestServer['createAccount'] = async (o = {}) => {
    const { account, key } = await accounts.createAccountWithKey(ctx, {
      name: 'test account',
      plan: o.plan ?? 'pro',
      subscriptionStatus: o.status ?? 'active',
      rateLimitPerMinute: o.rateLimitPerMinute ?? null,
    })
    if (!o.scope || o.scope === 'read_write') return { accountId: account.id, apiKey: key.secret }
    const scoped = await accounts.createAccountKey(ctx, account.id, { name: o.scope, scope: o.scope })
    return { accountId: account.id, apiKey: scoped.secret }
  }
  const first = await createAccount()
  return {
    ...first,
    baseUrl: running.url,
    dialect,
    databaseUrl,
    ctx,
    running,
    createAccount,
    close: async () => {
      await running.close()
      await pgDb?.drop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
