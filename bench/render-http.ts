/**
 * GET /api/v1/qr-codes/{id}/image.png over HTTP, served from the render cache (the same code and
 * size again and again) against rendered on every request (each request a code and size the
 * cache has not kept), measured in the same run against the same server. Reported as ratios.
 *
 * Builds nothing: the server runs from source (tsx, `--conditions=source`) in a child process
 * pinned to core 1; this process, the load generator, runs on core 0.
 *
 *   npm run bench:render-http -w @qrctl/bench
 *   BENCH_SECONDS=10 BENCH_ROUNDS=3 npm run bench:render-http -w @qrctl/bench
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
// autocannon ships no types; the few fields used are typed below.
// @ts-expect-error no declaration file
import autocannon from 'autocannon'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const SERVER_CORE = '1'
const CONNECTIONS = 16
const WARMUP_S = 2
const MEASURE_S = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
/** PNG widths compared; the API's default is 512. */
const WIDTHS = (process.env.BENCH_WIDTHS ?? '512,1024,2048').split(',').map(Number)
const CODES = 50
/**
 * Uncached requests at width W walk CODES codes × 128 sizes (W-64 … W+63 px) in a fixed cycle:
 * 6400 distinct images, more than the server's cache keeps (2000 entries), and an LRU cache
 * walked in a cycle longer than itself never hits. The sizes straddle W, so the uncached run
 * renders as many pixels as the cached run at W serves.
 */
const SIZE_SPREAD = 128

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer()
    s.once('error', fail)
    s.listen(0, '127.0.0.1', () => {
      const address = s.address()
      s.close(() => done(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

interface Server {
  baseUrl: string
  apiKey: string
  child: ChildProcess
  stop(): Promise<void>
}

/** `qrctl-server start` from source on a fresh SQLite file; its first account's key from stdout. */
async function startServer(dir: string): Promise<Server> {
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  const child = spawn(
    'taskset',
    [
      '-c',
      SERVER_CORE,
      process.execPath,
      '--conditions=source',
      '--import',
      'tsx',
      'server/src/main.ts',
      'start',
    ],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: `file:${join(dir, 'qrctl.db')}`,
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_BASE_URL: baseUrl,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: '1000000000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  const exited = new Promise<void>((done) => child.once('exit', () => done()))
  const apiKey = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`server not ready after 60 s:\n${output}`)), 60_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const key = output.match(/listening on [\s\S]*?(qrk_[0-9A-Za-z]+)/)?.[1]
      if (key) {
        clearTimeout(timer)
        done(key)
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code) => fail(new Error(`server exited ${code}:\n${output}`)))
  })
  return {
    baseUrl,
    apiKey,
    child,
    stop: () => {
      if (child.exitCode === null) child.kill('SIGTERM')
      return exited
    },
  }
}

async function createCodes(server: Server): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < CODES; i++) {
    const res = await fetch(`${server.baseUrl}/api/v1/qr-codes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: `Bench ${i}`,
        type: 'dynamic',
        contentType: 'url',
        content: `https://shop.example.com/products/${i}?utm_source=qr`,
      }),
    })
    const body = (await res.json()) as { data?: { id: string } }
    if (res.status !== 201 || !body.data)
      throw new Error(`create failed: ${res.status} ${JSON.stringify(body)}`)
    ids.push(body.data.id)
  }
  return ids
}

interface LoadResult {
  requestsPerSecond: number
  p50: number
  p99: number
  bytesPerResponse: number
  non2xx: number
  errors: number
}

interface AutocannonResult {
  requests: { total: number }
  latency: { p50: number; p99: number }
  throughput: { total: number }
  non2xx: number
  errors: number
  timeouts: number
}

/** One autocannon run; `nextPath` picks each request's path when given. */
async function load(
  server: Server,
  path: string,
  seconds: number,
  nextPath?: () => string,
  headers: Record<string, string> = {},
): Promise<LoadResult> {
  const result: AutocannonResult = await autocannon({
    url: `${server.baseUrl}${path}`,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${server.apiKey}`, ...headers },
    requests: nextPath ? [{ setupRequest: (req: object) => ({ ...req, path: nextPath() }) }] : undefined,
  })
  return {
    requestsPerSecond: result.requests.total / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bytesPerResponse: result.throughput.total / Math.max(1, result.requests.total),
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

interface Scenario {
  name: string
  run: () => Promise<LoadResult>
  /** Answers 304 throughout, which autocannon counts outside 2xx. */
  notModified?: boolean
}

async function measure(scenarios: Scenario[]): Promise<Map<string, LoadResult[]>> {
  const results = new Map<string, LoadResult[]>(scenarios.map((s) => [s.name, []]))
  for (let round = 0; round < ROUNDS; round++)
    // Alternating the order spreads slow moments of a shared machine over every scenario.
    for (const scenario of round % 2 ? [...scenarios].reverse() : scenarios) {
      const result = await scenario.run()
      const failed = result.errors + (scenario.notModified ? 0 : result.non2xx)
      if (failed > 0) throw new Error(`${scenario.name}: ${failed} failed requests`)
      results.get(scenario.name)!.push(result)
    }
  return results
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'qrctl-bench-render-'))
  const server = await startServer(dir)
  try {
    const ids = await createCodes(server)
    const imagePath = (id: string, size: number) => `/api/v1/qr-codes/${id}/image.png?size=${size}`
    let n = 0
    const uncachedPaths = (width: number) => () => {
      const i = n++
      const size = width - SIZE_SPREAD / 2 + (Math.floor(i / CODES) % SIZE_SPREAD)
      return imagePath(ids[i % CODES]!, size)
    }
    const cachedPath = (width: number) => imagePath(ids[0]!, width)
    const etag = (await fetch(`${server.baseUrl}${cachedPath(512)}`, {
      headers: { authorization: `Bearer ${server.apiKey}` },
    }).then((r) => r.headers.get('etag')))!

    const scenarios: Scenario[] = WIDTHS.flatMap((width) => [
      {
        name: `uncached ${width}`,
        run: () => load(server, cachedPath(width), MEASURE_S, uncachedPaths(width)),
      },
      { name: `cached ${width}`, run: () => load(server, cachedPath(width), MEASURE_S) },
    ])
    scenarios.push({
      name: 'revalidated 512 (304)',
      notModified: true,
      run: () => load(server, cachedPath(512), MEASURE_S, undefined, { 'if-none-match': etag }),
    })

    process.stdout.write(
      `node ${process.version}; server from source on core ${SERVER_CORE}, autocannon on core 0; ` +
        `${CONNECTIONS} connections; ${ROUNDS} rounds × ${MEASURE_S} s per scenario, alternating; medians\n` +
        `uncached W: ${CODES} codes × ${SIZE_SPREAD} sizes around W px, in a cycle; cached W: one code at W px\n\n`,
    )
    await load(server, cachedPath(512), WARMUP_S, uncachedPaths(512))
    await load(server, cachedPath(512), WARMUP_S)
    const results = await measure(scenarios)

    const rate = (name: string) => median(results.get(name)!.map((r) => r.requestsPerSecond))
    const width = Math.max(...scenarios.map((s) => s.name.length))
    for (const { name } of scenarios) {
      const runs = results.get(name)!
      process.stdout.write(
        `${name.padEnd(width)}  ${rate(name).toFixed(0).padStart(6)} req/s` +
          `  p50 ${median(runs.map((r) => r.p50))
            .toFixed(1)
            .padStart(5)} ms` +
          `  p99 ${median(runs.map((r) => r.p99))
            .toFixed(1)
            .padStart(5)} ms` +
          `  ${median(runs.map((r) => r.bytesPerResponse))
            .toFixed(0)
            .padStart(5)} B/response` +
          `  (rounds ${runs.map((r) => r.requestsPerSecond.toFixed(0)).join(', ')})\n`,
      )
    }
    // Ratios pair the two runs of the same round, which ran back to back, and take the median
    // over rounds: a shared machine's slow moments then hit both sides of a ratio alike.
    const ratio = (over: string, under: string) => {
      const a = results.get(over)!
      const b = results.get(under)!
      const perRound = a.map((r, i) => r.requestsPerSecond / b[i]!.requestsPerSecond)
      return `${median(perRound).toFixed(1)}× (rounds ${perRound.map((x) => x.toFixed(1)).join(', ')})`
    }
    process.stdout.write('\n')
    for (const w of WIDTHS)
      process.stdout.write(`cached / uncached at ${w} px: ${ratio(`cached ${w}`, `uncached ${w}`)}\n`)
    process.stdout.write(
      `revalidated (304) / cached at 512 px: ${ratio('revalidated 512 (304)', 'cached 512')}\n`,
    )
    const first = parseFloat(ratio(`cached ${WIDTHS[0]}`, `uncached ${WIDTHS[0]}`))
    process.stdout.write(
      `Target: cached ≥ 10× uncached at ${WIDTHS[0]} px: ${first >= 10 ? 'met' : 'MISSED'} (${first.toFixed(1)}×)\n`,
    )
  } finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
