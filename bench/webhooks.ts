/**
 * Issue #18.6: redirect throughput of the built server with 10 webhooks on `scan.created`, one
 * of them never answering (every attempt times out), as a ratio against the same server and
 * load without webhooks. Load generator and receivers on core 0, servers on core 1, as in
 * bench/redirect.ts.
 *
 * The machine is shared, so one long round of each says little (the same build gave 0.59 to
 * 1.28). The run is many short pairs instead: each pair measures both servers back to back, in
 * alternating order (without→with, then with→without), and the verdict is the median of the
 * pairs' ratios, with their range. Every measurement starts a fresh server on a fresh copy of
 * its template database (the same account, code and history for both; the "with" copy also has
 * the 10 webhooks), so neither inherits the other rounds' scans, outbox rows or backlog.
 * Besides throughput it reports the server's CPU per redirect per thread (from
 * /proc/PID/task/TID/stat): the main thread, the scan writer thread (the busiest other one) and
 * the rest, which a noisy machine moves far less than throughput, and the throughput ratio that
 * CPU implies (the inverse ratio of CPU per redirect: every thread of a server shares one core).
 *
 *   npm run build && npm run bench:webhooks -w @qrctl/bench
 *   BENCH_ROUNDS   pairs (default 8)
 *   BENCH_SECONDS  seconds measured per server and pair (default 5)
 *   BENCH_WARMUP_SECONDS  load before those (default 30)
 *   BENCH_THREADS  1: every server thread's CPU per redirect, by name and nice value
 *   BENCH_BASELINE_MAIN  another build's server/dist/main.js: its with/without run in the same
 *                        pairs (four servers a pair, order rotating), for an A/B of two builds
 */
import { spawn } from 'node:child_process'
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import {
  freePort,
  type LoadResult,
  load,
  ROOT,
  readStat,
  requireBuild,
  round,
  SERVER_MAIN,
  startQrctl,
} from './redirect-support.js'

const CONNECTIONS = 50
// Long enough for what a fresh server does once (compiling the sender's and undici's code, the
// first fan-out of a bundle: 2,000 rows) to be over before the measured seconds. The sender's
// thread runs at nice 19, so under this load its code warms up slowly, and V8 compiles it on its
// helper threads, which run at normal priority: after 5 s they still spent +15-19 us a redirect
// (TurboFan jobs and marking, perf, 2026-11-27), after 30 s +0.5-1.5 us, as a server that has
// run for a while does.
const WARMUP_S = Number(process.env.BENCH_WARMUP_SECONDS ?? 30)
const MEASURE_S = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8)
const BASELINE_MAIN = process.env.BENCH_BASELINE_MAIN
const WEBHOOKS = 10

const AGENT =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1'
let n = 0
const scanner = () => {
  n++
  return { 'user-agent': AGENT, 'x-forwarded-for': `1.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` }
}

async function startReceivers(): Promise<{ ports: number[]; stop(): Promise<number> }> {
  const child = spawn(
    'taskset',
    ['-c', '0', process.execPath, '--import', 'tsx', 'bench/webhook-receivers.ts', String(WEBHOOKS)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  let output = ''
  const ports = await new Promise<number[]>((done, fail) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const m = output.match(/receivers ([\d,]+)\n/)
      if (m) done((m[1] as string).split(',').map(Number))
    })
    child.once('exit', (code) => fail(new Error(`receivers exited ${code}`)))
  })
  const exited = new Promise<number>((done) =>
    child.once('exit', () => done(Number(output.match(/received (\d+)/)?.[1] ?? 0))),
  )
  return {
    ports,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      return exited
    },
  }
}

type ThreadStat = ReturnType<typeof readStat>

/** Each thread of a process, by thread id. */
function threadStats(pid: number): Map<number, ThreadStat> {
  const out = new Map<number, ThreadStat>()
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(Number(task), readStat(`/proc/${pid}/task/${task}/stat`))
    } catch {
      // The thread ended between listing and reading.
    }
  }
  return out
}

/** µs of CPU per redirect of each thread between two readings. */
function usedUs(before: Map<number, ThreadStat>, after: Map<number, ThreadStat>, requests: number) {
  return [...after].map(([tid, t]) => ({
    tid,
    ...t,
    us: ((t.ms - (before.get(tid)?.ms ?? 0)) * 1000) / requests,
  }))
}

/**
 * µs of CPU per redirect: the main thread, the busiest other thread at normal priority (the scan
 * writer), the threads at a lowered priority (the webhook sender's) and the rest (V8's helpers).
 * BENCH_THREADS=1 also prints every thread that used CPU, by name and nice value.
 */
function perThread(
  pid: number,
  before: Map<number, ThreadStat>,
  after: Map<number, ThreadStat>,
  requests: number,
) {
  const threads = usedUs(before, after, requests)
  if (process.env.BENCH_THREADS) {
    const shown = threads.filter((x) => x.us > 0.05).sort((a, b) => b.us - a.us)
    process.stdout.write(
      `    threads: ${shown.map((x) => `${x.name}#${x.tid}(n${x.nice}) ${x.us.toFixed(1)}`).join(', ')}\n`,
    )
  }
  let mainUs = 0
  let lowUs = 0
  const others: number[] = []
  for (const x of threads) {
    if (x.tid === pid) mainUs = x.us
    else if (x.nice > 0) lowUs += x.us
    else others.push(x.us)
  }
  others.sort((a, b) => b - a)
  const writerUs = others[0] ?? 0
  const restUs = others.slice(1).reduce((s, x) => s + x, 0)
  return { totalUs: mainUs + writerUs + lowUs + restUs, mainUs, writerUs, lowUs, restUs }
}

async function measure(url: string, pid: number) {
  await load({ url, connections: CONNECTIONS, durationSeconds: WARMUP_S, headersPerRequest: scanner })
  const before = threadStats(pid)
  const result: LoadResult = await load({
    url,
    connections: CONNECTIONS,
    durationSeconds: MEASURE_S,
    headersPerRequest: scanner,
  })
  return { ...result, cpu: perThread(pid, before, threadStats(pid), result.completed) }
}

function outbox(dbFile: string) {
  const db = new Database(dbFile, { readonly: true })
  try {
    const events = db
      .prepare(
        'select is_bundle, count(*) as n, sum(length(body)) as bytes from webhook_events group by is_bundle',
      )
      .all() as { is_bundle: number; n: number; bytes: number }[]
    const deliveries = db
      .prepare('select status, count(*) as n from webhook_deliveries group by status')
      .all() as { status: string; n: number }[]
    const scans = (db.prepare('select count(*) as n from scans').get() as { n: number }).n
    return {
      scans,
      bundles: events.find((e) => e.is_bundle === 1) ?? { n: 0, bytes: 0 },
      events: events.find((e) => e.is_bundle === 0) ?? { n: 0, bytes: 0 },
      deliveries: Object.fromEntries(deliveries.map((r) => [r.status, r.n])),
    }
  } finally {
    db.close()
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2
}

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
}

async function main() {
  requireBuild()
  const dir = mkdtempSync(join(tmpdir(), 'qrctl-bench-webhooks-'))
  const plainDb = join(dir, 'plain.db')
  const hookedDb = join(dir, 'hooked.db')
  const receivers = await startReceivers()
  // BENCH_NODE_OPTIONS (e.g. --require a profiler preload) is handed to the servers.
  const env = {
    WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
    ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
  }
  try {
    const port = await freePort()
    const setup = await startQrctl(plainDb, port, env)
    const call = (path: string, body: unknown) =>
      fetch(`http://127.0.0.1:${port}/api/v1${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${setup.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<{ data: { id: string; shortCode: string } }>)
    const code = (
      await call('/qr-codes', {
        name: 'bench',
        type: 'dynamic',
        contentType: 'url',
        content: 'https://example.com/landing',
      })
    ).data
    await setup.stop()
    copyFileSync(plainDb, hookedDb)
    const hooked = await startQrctl(hookedDb, port, env)
    for (const receiverPort of receivers.ports) {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${setup.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/hook`, events: ['scan.created'] }),
      })
      if (res.status !== 201) throw new Error(`webhook create: ${res.status} ${await res.text()}`)
    }
    await hooked.stop()

    type Arm = { name: string; template: string; main: string }
    const arms: Arm[] = [
      { name: 'without', template: plainDb, main: SERVER_MAIN },
      { name: 'with', template: hookedDb, main: SERVER_MAIN },
      ...(BASELINE_MAIN
        ? [
            { name: 'without@base', template: plainDb, main: BASELINE_MAIN },
            { name: 'with@base', template: hookedDb, main: BASELINE_MAIN },
          ]
        : []),
    ]
    type Result = Awaited<ReturnType<typeof measure>> & { outbox?: ReturnType<typeof outbox> }
    const rounds: { load: string; results: Record<string, Result> }[] = []
    for (let r = 0; r < ROUNDS; r++) {
      // Alternating order: a slow moment early or late in a pair hits each arm as often.
      const order = r % 2 === 0 ? arms : [...arms].reverse()
      const results: Record<string, Result> = {}
      const loadAvg = loadAverage()
      for (const arm of order) {
        // A fresh copy of the template: the same history for every arm and round.
        const file = join(dir, `round-${r}-${arm.name.replace('@', '-')}.db`)
        copyFileSync(arm.template, file)
        const serverPort = await freePort()
        const server = await startQrctl(file, serverPort, env, undefined, arm.main)
        const m: Result = await measure(
          `http://127.0.0.1:${serverPort}/r/${code.shortCode}`,
          server.process.pid ?? 0,
        )
        await server.stop()
        if (arm.template === hookedDb) m.outbox = outbox(file)
        for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true })
        results[arm.name] = m
        process.stdout.write(
          `pair ${r + 1} (load ${loadAvg}): ${arm.name.padEnd(12)} ${String(Math.round(m.requestsPerSecond)).padStart(6)} req/s` +
            `  p99 ${m.p99.toFixed(2)} ms  CPU µs/req: main ${m.cpu.mainUs.toFixed(1)}, writer ${m.cpu.writerUs.toFixed(1)}, low-priority ${m.cpu.lowUs.toFixed(1)}, rest ${m.cpu.restUs.toFixed(1)}, total ${m.cpu.totalUs.toFixed(1)}\n`,
        )
      }
      rounds.push({ load: loadAvg, results })
    }
    const delivered = await receivers.stop()

    const builds = BASELINE_MAIN ? ['', '@base'] : ['']
    const verdicts = builds.map((build) => {
      const ratios = rounds.map(
        (x) =>
          (x.results[`with${build}`]?.requestsPerSecond ?? 0) /
          (x.results[`without${build}`]?.requestsPerSecond ?? 1),
      )
      const cpu = (arm: string, pick: (c: Result['cpu']) => number) =>
        round(median(rounds.map((x) => pick((x.results[arm] as Result).cpu))), 1)
      const threads = (arm: string) => ({
        mainUs: cpu(arm, (c) => c.mainUs),
        writerUs: cpu(arm, (c) => c.writerUs),
        lowUs: cpu(arm, (c) => c.lowUs),
        restUs: cpu(arm, (c) => c.restUs),
        totalUs: cpu(arm, (c) => c.totalUs),
      })
      // The server and all its threads share one core: at the same share of that core, the
      // throughput ratio is the inverse ratio of CPU per redirect. A steadier estimate than
      // throughput, which follows the share the machine leaves the server at that moment.
      const cpuRatios = rounds.map(
        (x) =>
          (x.results[`without${build}`]?.cpu.totalUs ?? 0) / (x.results[`with${build}`]?.cpu.totalUs ?? 1),
      )
      return {
        build: build ? `baseline (${BASELINE_MAIN})` : 'this build',
        pairRatios: ratios.map((x) => round(x)),
        medianRatio: round(median(ratios)),
        range: [round(Math.min(...ratios)), round(Math.max(...ratios))],
        cpuImpliedRatio: round(median(cpuRatios)),
        cpuImpliedRange: [round(Math.min(...cpuRatios)), round(Math.max(...cpuRatios))],
        summedRatio: round(
          rounds.reduce((s, x) => s + (x.results[`with${build}`]?.requestsPerSecond ?? 0), 0) /
            rounds.reduce((s, x) => s + (x.results[`without${build}`]?.requestsPerSecond ?? 0), 0),
        ),
        medianCpuPerRedirect: { without: threads(`without${build}`), with: threads(`with${build}`) },
        lastOutbox: rounds[rounds.length - 1]?.results[`with${build}`]?.outbox,
      }
    })
    const summary = {
      connections: CONNECTIONS,
      seconds: MEASURE_S,
      pairs: ROUNDS,
      webhooks: WEBHOOKS,
      loadAverages: rounds.map((x) => x.load),
      verdicts,
      requestsReceived: delivered,
      target: { medianRatio: '>= 0.9' },
    }
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`)
    for (const v of verdicts)
      process.stdout.write(
        `\nwebhooks (${v.build}): redirects with ${WEBHOOKS} webhooks (one timing out) at a median ${v.medianRatio}x ` +
          `the throughput without over ${ROUNDS} pairs (range ${v.range[0]}–${v.range[1]}, summed ${v.summedRatio}x; target >= 0.9): ` +
          `${v.medianRatio >= 0.9 ? 'PASS' : 'FAIL'}; from CPU per redirect ${v.cpuImpliedRatio}x ` +
          `(range ${v.cpuImpliedRange[0]}–${v.cpuImpliedRange[1]})\n`,
      )
  } finally {
    await receivers.stop().catch(() => 0)
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
