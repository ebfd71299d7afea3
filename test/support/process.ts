import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach } from 'vitest'
import { createPostgresDatabase, type Dialect, freePort } from './server.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const MAIN = join(ROOT, 'server', 'src', 'main.ts')
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx')

export interface Output {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/**
 * `qrctl-server <args>` from source. `node` loads tsx as a hook in one process, as production
 * runs `node dist/main.js`; `tsx` is the CLI a developer types (`npx tsx --conditions=source
 * server/src/main.ts`). The tsx CLI relays a signal to its child and SIGKILLs it when the child
 * does not acknowledge within 60 ms, so a shutdown test with a busy event loop needs `node`.
 */
export function launchServerCommand(
  args: string[],
  env: Record<string, string>,
  runner: 'node' | 'tsx' = 'node',
): { child: ChildProcess; done: Promise<Output> } {
  const argv = ['--conditions=source', ...(runner === 'node' ? ['--import', 'tsx'] : []), MAIN, ...args]
  const child = spawn(runner === 'node' ? process.execPath : TSX, argv, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const out = { stdout: '', stderr: '' }
  child.stdout?.on('data', (chunk: Buffer) => {
    out.stdout += chunk.toString('utf8')
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    out.stderr += chunk.toString('utf8')
  })
  const done = new Promise<Output>((resolve) => {
    // Let the pipes drain before reading them.
    child.on('exit', (code, signal) => setTimeout(() => resolve({ code, signal, ...out }), 50))
  })
  return { child, done }
}

/** `qrctl-server <args>` to its end. */
export function runServerCommand(args: string[], env: Record<string, string>): Promise<Output> {
  return launchServerCommand(args, env).done
}

export interface ServerProcess {
  url: string
  child: ChildProcess
  done: Promise<Output>
  /** What it wrote so far, both streams. */
  output(): string
  /** stdout so far: the log stream, JSON lines only. */
  stdout(): string
  /** stderr so far: words for the terminal (the first key's banner). */
  stderr(): string
  /** Sends the signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<Output>
}

/** How long `startServerProcess` waits: a loaded CI machine can take tens of seconds to start one. */
const START_DEADLINE_MS = 90_000

/**
 * Options for a describe block whose tests start server processes: time for two starts and the
 * test's own work. The e2e default (60 s) would cut `startServerProcess`'s wait short.
 * @example describe.each(dialects())('the process on %s', PROCESS_TESTS, (dialect) => { … })
 */
export const PROCESS_TESTS = { timeout: 2 * START_DEADLINE_MS }

/**
 * `qrctl-server start` on a free loopback port, resolved once /healthz answers and the banner
 * is printed. The banner is one write (main.ts `announce`), so the first key, when there is
 * one, is in `stderr()` as soon as "listening on" is.
 */
export async function startServerProcess(
  env: Record<string, string>,
  runner: 'node' | 'tsx' = 'node',
): Promise<ServerProcess> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const { child, done } = launchServerCommand(
    ['start'],
    { ...env, PORT: String(port), HOST: '127.0.0.1' },
    runner,
  )
  const out = { both: '', stdout: '', stderr: '' }
  child.stdout?.on('data', (chunk: Buffer) => {
    out.both += chunk.toString('utf8')
    out.stdout += chunk.toString('utf8')
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    out.both += chunk.toString('utf8')
    out.stderr += chunk.toString('utf8')
  })
  let exited: Output | undefined
  void done.then((o) => {
    exited = o
  })
  const deadline = Date.now() + START_DEADLINE_MS
  for (;;) {
    if (exited) throw new Error(`server exited early (${exited.code}): ${exited.stderr}`)
    if (Date.now() > deadline) throw new Error(`server did not start: ${out.both}`)
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok && out.stderr.includes('listening on')) break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return {
    url,
    child,
    done,
    output: () => out.both,
    stdout: () => out.stdout,
    stderr: () => out.stderr,
    stop: (signal = 'SIGTERM') => {
      child.kill(signal)
      return done
    },
  }
}

/**
 * A fresh database for each test of a describe block that starts server processes: a SQLite
 * file in a new temp folder, or a new PostgreSQL database, dropped after the test. `use` gets
 * the folder and the environment (`DATABASE_URL`, `LOG_LEVEL=info`) before each test.
 */
export function databasePerTest(
  dialect: Dialect,
  prefix: string,
  use: (dir: string, env: Record<string, string>) => void,
): void {
  let dir: string
  let drop: (() => Promise<void>) | undefined
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), prefix))
    let url = `file:${join(dir, 'qrctl.db')}`
    if (dialect === 'postgres') {
      const db = await createPostgresDatabase()
      drop = db.drop
      url = db.url
    }
    use(dir, { DATABASE_URL: url, LOG_LEVEL: 'info' })
  })
  afterEach(async () => {
    await drop?.()
    drop = undefined
    rmSync(dir, { recursive: true, force: true })
  })
}
