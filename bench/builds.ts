/**
 * Server CPU per request of two (or more) builds of the server, run at the same time on the
 * same core, so whatever else the shared machine does in a moment hits every build alike.
 * Rounds of throughput measured one build after another moved by 2–3× here; CPU per request of
 * builds sharing a core, read from /proc, moves by a few per cent (docs/performance.md, #14.4).
 *
 *   BENCH_SERVERS=/path/to/old/server/dist/main.js,server/dist/main.js npm run bench:builds -w @qrctl/bench
 *
 * The builds are listed twice, the second time in reverse order (A B B A): a server that
 * serves more requests spreads its timers and idle work over more of them, and the order the
 * load starts in favours the first. Scenarios (BENCH_SCENARIOS, comma-separated):
 *
 * - `counted`: GET /r/{code} from the benchmark's 50,000 scanners (scanners.ts): a counted scan
 *   with its enrichment, buffered and written by the scan writer thread;
 * - `head`: HEAD /r/{code}: the redirect answered and not counted (the request's own steps);
 * - `image`: GET /api/v1/qr-codes/{id}/image.png, a cached 512 px image with an API key.
 *
 * Each server gets its own fresh SQLite file and 16 connections. Reported per build: CPU per
 * request of the whole process, of its main thread and of its busiest other thread (under
 * `counted`, the scan writer thread; a build without one shows a V8 helper there), the rest
 * being V8's helpers (GC, compilation) and libuv's, summed over the rounds after a warm-up
 * round, and the ratio to the first build. BENCH_THREADS=1 also breaks the rest down by thread.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import {
  createDynamicCode,
  freePort,
  load,
  ROOT,
  requireBuild,
  round,
  SERVER_MAIN,
  startQrctl,
  statCpuMs,
} from './redirect-support.js'
import { scannerHeaders } from './scanners.js'

const BUILDS = (process.env.BENCH_SERVERS ?? SERVER_MAIN).split(',').map((path) => resolve(ROOT, path))
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6)
const CONNECTIONS = 16
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'counted,head,image').split(',')

/** utime + stime in ms of a process. */
const cpuMs = (pid: number) => statCpuMs(`/proc/${pid}/stat`)

/** Each thread's name (/proc's comm), by thread id, for BENCH_THREADS's breakdown of the rest. */
const threadNames = new Map<number, string>()

/** utime + stime in ms of each live thread of a process, by thread id. */
function threadCpuMs(pid: number): Map<number, number> {
  const threads = new Map<number, number>()
  for (const tid of readdirSync(`/proc/${pid}/task`))
    try {
      threads.set(Number(tid), statCpuMs(`/proc/${pid}/task/${tid}/stat`))
      if (!threadNames.has(Number(tid)))
        threadNames.set(Number(tid), readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim())
    } catch {
      // The thread ended between listing and reading.
    }
  return threads
}

interface Server {
  build: string
  port: number
  apiKey: string
  shortCode: string
  id: string
  pid: number
  stop: () => Promise<number | null>
  dir: string
}

async function start(build: string): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'qrctl-builds-'))
  const port = await freePort()
  const child = await startQrctl(join(dir, 'qrctl.db'), port, {}, undefined, build)
  if (!child.apiKey || !child.process.pid) throw new Error(`no key from ${build}: ${child.output()}`)
  const data = await createDynamicCode(port, child.apiKey)
  return {
    build,
    port,
    apiKey: child.apiKey,
    shortCode: data.shortCode,
    id: data.id,
    pid: child.process.pid,
    stop: child.stop,
    dir,
  }
}

function request(server: Server, scenario: string) {
  const base = `http://127.0.0.1:${server.port}`
  if (scenario === 'image')
    return {
      url: `${base}/api/v1/qr-codes/${server.id}/image.png?size=512`,
      headers: { authorization: `Bearer ${server.apiKey}` },
    }
  return {
    url: `${base}/r/${server.shortCode}`,
    headersPerRequest: scannerHeaders,
    method: scenario === 'head' ? ('HEAD' as const) : ('GET' as const),
  }
}

async function measure(scenario: string) {
  const order = [...BUILDS, ...[...BUILDS].reverse()]
  const servers: Server[] = []
  for (const build of order) servers.push(await start(build))
  // Per server: the whole process's CPU, each thread's (by id) and the requests, measured rounds only.
  const sums = servers.map(() => ({ all: 0, threads: new Map<number, number>(), requests: 0 }))
  try {
    for (let r = 0; r <= ROUNDS; r++) {
      const before = servers.map((s) => ({ all: cpuMs(s.pid), threads: threadCpuMs(s.pid) }))
      const results = await Promise.all(
        servers.map((s) =>
          load({ connections: CONNECTIONS, durationSeconds: SECONDS, ...request(s, scenario) }),
        ),
      )
      if (r === 0) continue // warm-up
      servers.forEach((s, i) => {
        const sum = sums[i] as (typeof sums)[number]
        sum.all += cpuMs(s.pid) - (before[i]?.all ?? 0)
        for (const [tid, ms] of threadCpuMs(s.pid))
          sum.threads.set(tid, (sum.threads.get(tid) ?? 0) + ms - (before[i]?.threads.get(tid) ?? 0))
        sum.requests += results[i]?.completed ?? 0
      })
    }
  } finally {
    for (const s of servers) {
      await s.stop()
      rmSync(s.dir, { recursive: true, force: true })
    }
  }
  const load1 = readFileSync('/proc/loadavg', 'utf8').split(' ')[0]
  const perBuild = BUILDS.map((build) => {
    const mine = sums.flatMap((s, i) => (order[i] === build ? [{ ...s, pid: servers[i]?.pid }] : []))
    const requests = mine.reduce((n, s) => n + s.requests, 0)
    const main = mine.reduce((n, s) => n + (s.threads.get(s.pid as number) ?? 0), 0)
    const busiest = mine.reduce(
      (n, s) => n + Math.max(0, ...[...s.threads].filter(([tid]) => tid !== s.pid).map(([, ms]) => ms)),
      0,
    )
    const all = mine.reduce((n, s) => n + s.all, 0)
    return {
      build,
      requests,
      cpuUs: (all * 1000) / requests,
      mainUs: (main * 1000) / requests,
      otherUs: (busiest * 1000) / requests,
      restUs: ((all - main - busiest) * 1000) / requests,
      // The rest by thread, named by its id's offset from the process id (V8's helpers are
      // started first, at +1 … +4, and all named "node"), µs a request.
      restByThread: (() => {
        const byName = new Map<string, number>()
        for (const s of mine) {
          const pid = s.pid as number
          const busiestTid = [...s.threads]
            .filter(([tid]) => tid !== s.pid)
            .reduce((best, t) => (t[1] > best[1] ? t : best), [0, -1])[0]
          for (const [tid, ms] of s.threads) {
            if (tid === s.pid || tid === busiestTid) continue
            const name = `${threadNames.get(tid) ?? '?'} +${tid - pid}`
            byName.set(name, (byName.get(name) ?? 0) + (ms * 1000) / requests)
          }
        }
        return [...byName].sort((a, b) => b[1] - a[1])
      })(),
    }
  })
  const first = perBuild[0] as (typeof perBuild)[number]
  console.log(`\n${scenario} (${ROUNDS} rounds of ${SECONDS} s, load average ${load1} at the end)`)
  const ratio = (a: number, b: number) => (b > 0 ? `${round(a / b, 3)}×` : '–')
  for (const b of perBuild)
    console.log(
      `  ${b.build}: ${round(b.cpuUs, 1)} µs CPU per request (${ratio(b.cpuUs, first.cpuUs)}), main thread ${round(b.mainUs, 1)} µs (${ratio(b.mainUs, first.mainUs)}), busiest other thread ${round(b.otherUs, 1)} µs (${ratio(b.otherUs, first.otherUs)}), the rest ${round(b.restUs, 1)} µs, ${b.requests} requests`,
    )
  if (process.env.BENCH_THREADS)
    for (const b of perBuild)
      console.log(
        `  the rest of ${b.build}: ${b.restByThread
          .filter(([, us]) => us >= 0.1)
          .map(([name, us]) => `${name} ${round(us, 1)} µs`)
          .join(', ')}`,
      )
}

requireBuild()
for (const scenario of SCENARIOS) await measure(scenario)
