import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
// autocannon ships no types; the few fields used are typed below.
// @ts-expect-error no declaration file
import autocannon from 'autocannon'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
export const SERVER_MAIN = join(ROOT, 'server/dist/main.js')

/** The load generator runs on core 0 (this process, started under taskset) and servers on core 1. */
export const SERVER_CORE = '1'

export function requireBuild(): void {
  if (!existsSync(SERVER_MAIN)) {
    process.stderr.write('Build first: npm run build (the benchmark runs server/dist/main.js)\n')
    process.exit(1)
  }
}

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer()
    s.once('error', fail)
    s.listen(0, '127.0.0.1', () => {
      const address = s.address()
      s.close(() => done(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

export interface Child {
  process: ChildProcess
  output: () => string
  /** CPU time (user + system) the process has used so far, in ms (10 ms resolution). */
  cpuMs(): number
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>
}

/** utime + stime in ms of a process (`/proc/PID/stat`) or a thread (`/proc/PID/task/TID/stat`). */
export function statCpuMs(statFile: string): number {
  return readStat(statFile).ms
}

/** A process's or thread's stat line: its CPU time (utime + stime, ms), name and nice value. */
export function readStat(statFile: string): { ms: number; name: string; nice: number } {
  const stat = readFileSync(statFile, 'utf8')
  // The name is in parentheses; after them utime and stime are the 12th and 13th fields (10 ms
  // ticks) and the nice value the 17th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return {
    ms: (Number(fields[11]) + Number(fields[12])) * 10,
    name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    nice: Number(fields[16]),
  }
}

/** utime + stime of a process and every live descendant (WORKERS=N forks), in ms. */
function treeCpuMs(pid: number): number {
  let ms = 0
  try {
    ms += statCpuMs(`/proc/${pid}/stat`)
    for (const task of readdirSync(`/proc/${pid}/task`))
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' '))
        if (child.trim()) ms += treeCpuMs(Number(child))
  } catch {
    // The process ended between listing and reading.
  }
  return ms
}

/**
 * Spawns `command` pinned to `cores` (SERVER_CORE unless told) and resolves once its output
 * matches `ready`.
 */
export async function spawnPinned(
  command: string[],
  env: Record<string, string>,
  ready: RegExp,
  cores = SERVER_CORE,
): Promise<Child & { match: RegExpMatchArray }> {
  const child = spawn('taskset', ['-c', cores, ...command], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)))
  const match = await new Promise<RegExpMatchArray>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`not ready: ${output}`)), 90_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const m = output.match(ready)
      if (m) {
        clearTimeout(timer)
        done(m)
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code) => fail(new Error(`exited ${code}: ${output}`)))
  })
  return {
    process: child,
    match,
    output: () => output,
    // taskset execs the command, so the pid is the server's.
    cpuMs: () => treeCpuMs(child.pid ?? 0),
    stop: () => {
      if (child.exitCode === null) child.kill('SIGTERM')
      return exited
    },
  }
}

/**
 * The built qrctl server on a SQLite file (or the `DATABASE_URL` in `env`), pinned to `cores`;
 * resolves with the first account's API key.
 */
export async function startQrctl(
  dbFile: string,
  port: number,
  env: Record<string, string> = {},
  cores = SERVER_CORE,
  /** Another build of the server (a before/after in one session). */
  main = SERVER_MAIN,
) {
  const child = await spawnPinned(
    [process.execPath, main, 'start'],
    {
      DATABASE_URL: `file:${dbFile}`,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      TRUST_PROXY: 'on',
      RATE_LIMIT_PER_MINUTE: '1000000000',
      ...env,
    },
    /listening on .*\n(?:[\s\S]*?(qrk_[0-9A-Za-z]{40}))?/,
    cores,
  )
  await new Promise((done) => setTimeout(done, 300))
  const apiKey = child.output().match(/qrk_[0-9A-Za-z]{40}/)?.[0]
  return { ...child, apiKey }
}

/** One dynamic URL code created through the API of the server at `port`. */
export async function createDynamicCode(port: number, apiKey: string | undefined) {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/qr-codes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'bench',
      type: 'dynamic',
      contentType: 'url',
      content: 'https://example.com/x',
    }),
  })
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { data: { id: string; shortCode: string } }).data
}

export interface LoadResult {
  requestsPerSecond: number
  p50: number
  p99: number
  completed: number
  non2xx: number
  errors: number
  /** Exact latencies (ms) of every response. */
  latencies: number[]
}

export interface LoadOptions {
  url: string
  connections: number
  durationSeconds: number
  headers?: Record<string, string>
  /** Fresh headers per request. */
  headersPerRequest?: () => Record<string, string>
  /** GET unless told (HEAD: a redirect that is answered but not counted). */
  method?: 'GET' | 'HEAD'
}

/** One autocannon run; latency percentiles from every response's exact time. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = []
  const instance = autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSeconds,
    headers: options.headers,
    method: options.method ?? 'GET',
    requests: options.headersPerRequest
      ? [
          {
            setupRequest: (req: { headers?: Record<string, string> }) => ({
              ...req,
              headers: { ...req.headers, ...options.headersPerRequest?.() },
            }),
          },
        ]
      : undefined,
  })
  instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => {
    latencies.push(ms)
  })
  const result = await instance
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN
  return {
    requestsPerSecond: result.requests.total / options.durationSeconds,
    p50: at(0.5),
    p99: at(0.99),
    completed: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    latencies,
  }
}

export const round = (n: number, digits = 2) => Number(n.toFixed(digits))
