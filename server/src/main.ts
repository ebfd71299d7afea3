#!/usr/bin/env node
import cluster from 'node:cluster'
import { existsSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { Scope } from '@qrctl/contract'
import { z } from 'zod'
import { type FirstAccount, runPrimary, seedFirstAccount } from './cluster.js'
import { type Config, loadConfig } from './config.js'
import { backupDatabase } from './db/backup.js'
import { migrateToLatest, openDatabase } from './db/database.js'
import { PLANS, SUBSCRIPTION_STATUSES } from './modules/accounts/accounts.repository.js'
import * as accounts from './modules/accounts/accounts.service.js'
import { importScans } from './modules/analytics/import-scans.js'
import * as sessions from './modules/sessions/sessions.service.js'
import { createContext, startServer } from './server.js'

const USAGE = `Usage: qrctl-server <command>

Commands:
  start                                   migrate, then serve (PORT, HOST, DATABASE_URL …)
  migrate                                 apply pending database migrations
  backup FILE                             online copy of the SQLite database to FILE (PostgreSQL: pg_dump)
  admin create-account --name N [--plan pro|free] [--json]
  admin create-key --account ID [--name N] [--environment E] [--scope read|write|read_write] [--json]
  admin set-plan --account ID --plan pro|free [--status active|past_due|canceled] [--rate-limit N]
  admin import-scans --account ID FILE.csv [--skip-bad] [--json]
                                          add scans in the export's CSV format (docs/analytics.md)
  admin login-link --account ID [--json]  a one-time dashboard sign-in link (15 minutes, single use)

Configuration is read from the environment; see docs/api.md.`

const AdminOptions = z.object({
  name: z.string().min(1).optional(),
  plan: z.enum(PLANS).optional(),
  status: z.enum(SUBSCRIPTION_STATUSES).optional(),
  account: z.string().uuid('--account must be an account id (a UUID)').optional(),
  environment: z.string().min(1).optional(),
  scope: Scope.optional(),
  'rate-limit': z.coerce.number().int().min(1).optional(),
  'skip-bad': z.boolean().optional(),
  json: z.boolean().optional(),
})
type AdminOptions = z.infer<typeof AdminOptions>

class UsageError extends Error {}

function required<K extends keyof AdminOptions>(options: AdminOptions, key: K): NonNullable<AdminOptions[K]> {
  const value = options[key]
  if (value === undefined) throw new UsageError(`--${String(key)} is required`)
  return value as NonNullable<AdminOptions[K]>
}

async function withContext<T>(
  config: Config,
  run: (ctx: ReturnType<typeof createContext>) => Promise<T>,
): Promise<T> {
  const handle = openDatabase(config.database)
  const ctx = createContext(config, handle)
  try {
    await migrateToLatest(handle.db)
    return await run(ctx)
  } finally {
    await ctx.checks.close()
    await handle.close()
  }
}

function printKey(json: boolean | undefined, accountId: string, apiKey: string, what: string): void {
  if (json) process.stdout.write(`${JSON.stringify({ accountId, apiKey })}\n`)
  else process.stdout.write(`${what}\naccount: ${accountId}\nAPI key (shown once, store it now): ${apiKey}\n`)
}

async function admin(config: Config, command: string | undefined, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      name: { type: 'string' },
      plan: { type: 'string' },
      status: { type: 'string' },
      account: { type: 'string' },
      environment: { type: 'string' },
      scope: { type: 'string' },
      'rate-limit': { type: 'string' },
      'skip-bad': { type: 'boolean' },
      json: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: true,
  })
  const parsed = AdminOptions.safeParse(values)
  if (!parsed.success)
    throw new UsageError(parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('\n'))
  if (command !== 'import-scans' && positionals.length > 0)
    throw new UsageError(`Unexpected argument: ${positionals[0]}`)
  await withContext(config, adminAction(command, parsed.data, positionals))
}

type AdminAction = (ctx: ReturnType<typeof createContext>) => Promise<void>

/** One admin command's work. Its required options are checked first, before any database is opened. */
function adminAction(command: string | undefined, options: AdminOptions, files: string[]): AdminAction {
  if (command === 'create-account') {
    const name = required(options, 'name')
    return async (ctx) => {
      const { account, key } = await accounts.createAccountWithKey(ctx, {
        name,
        plan: options.plan ?? 'pro',
        rateLimitPerMinute: options['rate-limit'] ?? null,
      })
      printKey(options.json, account.id, key.secret, `Created account "${account.name}" (${account.plan})`)
    }
  }
  if (command === 'create-key') {
    const accountId = required(options, 'account')
    return async (ctx) => {
      const key = await accounts.createAccountKey(ctx, accountId, {
        name: options.name ?? 'default',
        environment: options.environment ?? null,
        scope: options.scope ?? 'read_write',
      })
      printKey(options.json, accountId, key.secret, `Created ${key.scope} key "${key.name}"`)
    }
  }
  if (command === 'set-plan') {
    const accountId = required(options, 'account')
    const plan = required(options, 'plan')
    return async (ctx) => {
      const account = await accounts.setPlan(ctx, accountId, {
        plan,
        subscriptionStatus: options.status,
        rateLimitPerMinute: options['rate-limit'],
      })
      if (options.json) process.stdout.write(`${JSON.stringify(account)}\n`)
      else
        process.stdout.write(
          `Account ${account.id}: plan ${account.plan}, subscription ${account.subscriptionStatus}\n`,
        )
    }
  }
  if (command === 'login-link') {
    const accountId = required(options, 'account')
    return async (ctx) => {
      const link = await sessions.createLoginLink(ctx, accountId)
      if (options.json) process.stdout.write(`${JSON.stringify({ accountId, ...link })}\n`)
      else
        process.stdout.write(
          `Sign-in link for account ${accountId} (works once, until ${link.expiresAt}):\n${link.url}\n`,
        )
    }
  }
  if (command === 'import-scans') {
    const accountId = required(options, 'account')
    if (files.length !== 1) throw new UsageError('import-scans takes one argument: the CSV file')
    const file = files[0] as string
    if (!existsSync(file)) throw new UsageError(`No such file: ${file}`)
    return (ctx) => runImport(ctx, accountId, file, options)
  }
  throw new UsageError(`Unknown admin command: ${command ?? '(none)'}`)
}

/** Bad rows go to stderr by line; the summary to stdout. Exit 1 when anything was refused. */
async function runImport(
  ctx: ReturnType<typeof createContext>,
  accountId: string,
  file: string,
  options: AdminOptions,
): Promise<void> {
  const report = await importScans(ctx, accountId, file, { skipBad: options['skip-bad'] })
  for (const error of report.errors.slice(0, 100))
    process.stderr.write(`line ${error.line}: ${error.message}\n`)
  if (report.errors.length > 100) process.stderr.write(`… and ${report.errors.length - 100} more bad rows\n`)
  const earlier = report.alreadyImported
    ? `; ${report.alreadyImported} already imported by an earlier run of this file`
    : ''
  if (options.json)
    process.stdout.write(
      `${JSON.stringify({ imported: report.imported, alreadyImported: report.alreadyImported, badRows: report.errors.length })}\n`,
    )
  else if (report.imported === 0 && report.errors.length > 0)
    process.stdout.write(
      `Imported nothing: ${report.errors.length} bad rows (--skip-bad imports the others)\n`,
    )
  else
    process.stdout.write(
      `Imported ${report.imported} scans${report.errors.length ? `, skipped ${report.errors.length} bad rows` : ''}${earlier}\n`,
    )
  if (report.imported === 0 && report.errors.length > 0) process.exitCode = 1
}

/**
 * DESIGN §2: stdout is the log stream (JSON lines); words for the person at the terminal, and
 * above all the first key, go to stderr, so a log shipper never receives the key.
 */
function announce(config: Config, first: FirstAccount | undefined): void {
  const workers = config.workers > 1 ? `, ${config.workers} workers` : ''
  let banner = `qrctl server listening on ${config.publicBaseUrl} (database: ${config.database.dialect}${workers})\n`
  if (first) {
    banner +=
      `\nCreated the first account. Its API key is shown once; store it now:\n\n  ${first.key.secret}\n\n` +
      `Try: curl -H "Authorization: Bearer ${first.key.secret}" ${config.publicBaseUrl}/api/v1/qr-codes\n\n` +
      `Dashboard: sign in once with this link (valid 15 minutes; \`qrctl-server admin login-link\` makes more):\n\n  ${first.loginLink}\n\n`
  }
  // One write, well under a pipe's atomic size: whoever reads "listening on" has the key too.
  process.stderr.write(banner)
}

async function start(config: Config): Promise<void> {
  // WORKERS=N: the primary migrates, seeds, forks and supervises (cluster.ts); each worker
  // serves as a single server does, without migrating, seeding or announcing again.
  if (config.workers > 1 && cluster.isPrimary)
    return runPrimary(config, { onListening: (first) => announce(config, first) })
  const running = await startServer(config)
  running.ctx.logger.info(
    { publicBaseUrl: config.publicBaseUrl, dialect: config.database.dialect },
    'listening',
  )
  if (!cluster.isWorker) announce(config, await seedFirstAccount(running.ctx))
  const stop = (signal: string) => {
    running.ctx.logger.info({ signal }, 'shutting down')
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        running.ctx.logger.error({ err: error }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  // A worker hears Ctrl-C twice (from the terminal and from the primary): closing is idempotent,
  // and a second signal must not fall through to Node's default handler and kill it mid-drain.
  const listen = cluster.isWorker ? process.on.bind(process) : process.once.bind(process)
  listen('SIGTERM', () => stop('SIGTERM'))
  listen('SIGINT', () => stop('SIGINT'))
}

async function backup(config: Config, file: string | undefined, rest: string[]): Promise<void> {
  if (!file || rest.length > 0) throw new UsageError('backup takes one argument: the file to write')
  const { pages } = await backupDatabase(config.database, file)
  process.stdout.write(`Backed up to ${file} (${pages} pages)\n`)
}

async function main(argv: string[]): Promise<void> {
  const [command, sub, ...rest] = argv
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  const config = loadConfig()
  if (command === 'start') return start(config)
  if (command === 'migrate') {
    const handle = openDatabase(config.database)
    const result = await migrateToLatest(handle.db)
    await handle.close()
    const applied = result.results?.map((r) => r.migrationName) ?? []
    process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date\n')
    return
  }
  if (command === 'admin') return admin(config, sub, rest)
  if (command === 'backup') return backup(config, sub, rest)
  throw new UsageError(`Unknown command: ${command}`)
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (
    error instanceof UsageError ||
    (error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
  ) {
    process.stderr.write(`${error.message}\n\n${USAGE}\n`)
    process.exit(2)
  }
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})
