import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
/** The built binary, exactly as `npm link` or `npx qrctl` runs it. */
export const MAIN = join(ROOT, 'cli', 'dist', 'main.js')

const LOCK = join(tmpdir(), 'qrctl-cli-build.lock')

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/**
 * Builds the CLI and what it depends on (turbo; cached when nothing changed). Test files run
 * in parallel processes, so a lock directory lets one build at a time. Under `npm test`
 * turbo has built it already (this workspace's test task depends on ^build:self, TURBO_HASH is set).
 */
export function buildCli(): void {
  if (process.env.TURBO_HASH && existsSync(MAIN)) return
  for (;;) {
    try {
      mkdirSync(LOCK)
      break
    } catch {
      // A lock left by a killed run is stale after five minutes.
      if (Date.now() - statSync(LOCK, { throwIfNoEntry: false })!.mtimeMs > 300_000)
        rmSync(LOCK, { force: true, recursive: true })
      sleepSync(200)
    }
  }
  try {
    execFileSync('npx', ['turbo', 'run', 'build:self', '--filter=qrctl...', '--output-logs=errors-only'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
    })
  } finally {
    rmSync(LOCK, { force: true, recursive: true })
  }
}

/** A fresh home for one test: its own config and state directories, so no test sees another's login. */
export interface Home {
  dir: string
  configDir: string
  stateDir: string
  configFile: string
  env: Record<string, string>
  cleanup(): void
}

export function tempHome(): Home {
  const dir = mkdtempSync(join(tmpdir(), 'qrctl-cli-'))
  const configDir = join(dir, 'config')
  const stateDir = join(dir, 'state')
  return {
    dir,
    configDir,
    stateDir,
    configFile: join(configDir, 'qrctl', 'config.json'),
    env: { HOME: dir, XDG_CONFIG_HOME: configDir, XDG_STATE_HOME: stateDir },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/**
 * Which streams are a terminal: none (pipes), `stdout` (stderr to a file), `stderr` (stdout
 * to a file) or `both`. Terminals come from `script` (util-linux), which runs the command on a
 * pseudo-terminal; its output is the terminal's, with \r\n line ends normalised to \n.
 */
export type Tty = 'none' | 'stdout' | 'stderr' | 'both'

export interface RunOptions {
  env?: Record<string, string | undefined>
  /** Written to stdin, which is then closed. */
  input?: string | Buffer
  /** With a terminal: answer each prompt once its text has appeared. */
  answers?: { when: RegExp; send: string }[]
  tty?: Tty
  cwd?: string
  timeoutMs?: number
  /** The terminal's width, with a terminal (default 120). */
  cols?: number
}

export interface RunResult {
  code: number | null
  stdout: string
  stderr: string
  stdoutBytes: Buffer
}

/** Kills a process started with `detached: true` and everything it started. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (pid === undefined) return
  try {
    process.kill(-pid, signal)
  } catch {
    // Already gone.
  }
}

function quote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`
}

export interface RunningCli {
  pid: number | undefined
  /** What the process wrote to stderr so far (the terminal's output with a terminal on stderr). */
  stderrSoFar(): string
  done: Promise<RunResult>
}

/**
 * Starts the built `qrctl` with only the environment given (no inherited QRCTL_* or NO_COLOR),
 * in a process group of its own (so a timeout or a test kills `script`, the shell and qrctl
 * together).
 */
export function startCli(args: readonly string[], options: RunOptions = {}): RunningCli {
  const tty = options.tty ?? 'none'
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' }
  for (const [k, v] of Object.entries(options.env ?? {})) if (v !== undefined) env[k] = v
  if (tty !== 'none') {
    env.TERM ??= 'xterm-256color'
    env.SHELL = '/bin/sh'
  }
  const scratch = mkdtempSync(join(tmpdir(), 'qrctl-run-'))
  const outFile = join(scratch, 'stdout')
  const errFile = join(scratch, 'stderr')
  const command = [process.execPath, MAIN, ...args].map(quote).join(' ')
  const redirect = tty === 'stdout' ? ` 2>${quote(errFile)}` : tty === 'stderr' ? ` >${quote(outFile)}` : ''
  const child =
    tty === 'none'
      ? spawn(process.execPath, [MAIN, ...args], { env, cwd: options.cwd, detached: true })
      : spawn(
          'script',
          ['-qec', `stty cols ${options.cols ?? 120} rows 40; ${command}${redirect}`, '/dev/null'],
          {
            env,
            cwd: options.cwd,
            detached: true,
          },
        )
  const out: Buffer[] = []
  const err: Buffer[] = []
  const answers = [...(options.answers ?? [])]
  child.stdout.on('data', (chunk: Buffer) => {
    out.push(chunk)
    const next = answers[0]
    if (next?.when.test(Buffer.concat(out).toString('utf8'))) {
      answers.shift()
      child.stdin.write(next.send)
      if (answers.length === 0) child.stdin.end()
    }
  })
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk))
  child.stdin.on('error', () => undefined)
  if (options.input !== undefined) child.stdin.end(options.input)
  else if (answers.length === 0) child.stdin.end()
  const timeout = setTimeout(() => killGroup(child.pid), options.timeoutMs ?? 60_000)
  const done = new Promise<RunResult>((resolvePromise, reject) => {
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timeout)
      const read = (file: string) => {
        try {
          return readFileSync(file)
        } catch {
          return Buffer.alloc(0)
        }
      }
      const terminal = Buffer.concat(out)
      const normalise = (b: Buffer) => b.toString('utf8').replace(/\r\n/g, '\n')
      const result: RunResult =
        tty === 'none'
          ? {
              code,
              stdout: normalise(terminal),
              stderr: Buffer.concat(err).toString('utf8'),
              stdoutBytes: terminal,
            }
          : tty === 'stdout'
            ? {
                code,
                stdout: normalise(terminal),
                stderr: read(errFile).toString('utf8'),
                stdoutBytes: terminal,
              }
            : tty === 'stderr'
              ? {
                  code,
                  stdout: read(outFile).toString('utf8'),
                  stderr: normalise(terminal),
                  stdoutBytes: read(outFile),
                }
              : { code, stdout: normalise(terminal), stderr: '', stdoutBytes: terminal }
      rmSync(scratch, { recursive: true, force: true })
      resolvePromise(result)
    })
  })
  const stderrSoFar = () => Buffer.concat(tty === 'stderr' || tty === 'both' ? out : err).toString('utf8')
  return { pid: child.pid, stderrSoFar, done }
}

/** Runs the built `qrctl` to the end; see `startCli`. */
export function runCli(args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return startCli(args, options).done
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escape sequences is the point
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]|\u001b[78]/g

/** Text without colour and cursor sequences. */
export function plain(text: string): string {
  return text.replace(ANSI, '')
}

export function hasAnsi(text: string): boolean {
  return text.includes('\u001b[')
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching colour escape sequences is the point
const SGR = /\u001b\[[0-9;]*m/

/** Whether the text holds a colour or bold sequence (cursor movement aside). */
export function hasColor(text: string): boolean {
  return SGR.test(text)
}

/** The env of a logged-in user of `server`, through QRCTL_* (no config file needed). */
export function apiEnv(home: Home, server: { baseUrl: string }, apiKey: string): Record<string, string> {
  return { ...home.env, QRCTL_BASE_URL: server.baseUrl, QRCTL_API_KEY: apiKey }
}
