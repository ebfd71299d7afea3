/**
 * Issue #18.6: redirect throughput of the built server with 10 webhooks on `scan.created`, one
 * of them never answering (every attempt times out), as a ratio against the same server and
 * load without webhooks, measured in the same run. Load generator and receivers on core 0,
 * server on core 1, as in bench/redirect.ts.
 *
 *   npm run build && npm run bench:webhooks -w @qrctl/bench
 */
import { spawn } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { freePort, type LoadResult, load, ROOT, requireBuild, round, startQrctl } from './redirect-support.js'

const CONNECTIONS = 50
const WARMUP_S = 3
const MEASURE_S = Number(process.env.BENCH_SECONDS ?? 10)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
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

async function measure(url: string, server: { cpuMs(): number }) {
  await load({ url, connections: CONNECTIONS, durationSeconds: WARMUP_S, headersPerRequest: scanner })
  const cpuBefore = server.cpuMs()
  const result: LoadResult = await load({
    url,
    connections: CONNECTIONS,
    durationSeconds: MEASURE_S,
    headersPerRequest: scanner,
  })
  return { ...result, cpuPerRequestUs: ((server.cpuMs() - cpuBefore) * 1000) / result.completed }
}

function outbox(dbFile: string) {
  const db = new Database(dbFile, { readonly: true })
  try {
    const rows = db.prepare('select status, count(*) as n from webhook_deliveries group by status').all() as {
      status: string
      n: number
    }[]
    return Object.fromEntries(rows.map((r) => [r.status, r.n]))
  } finally {
    db.close()
  }
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

    const rounds = []
    for (let r = 1; r <= ROUNDS; r++) {
      const results: Record<string, Awaited<ReturnType<typeof measure>>> = {}
      for (const [name, file] of [
        ['without', plainDb],
        ['with', hookedDb],
      ] as const) {
        const serverPort = await freePort()
        const server = await startQrctl(file, serverPort, env)
        results[name] = await measure(`http://127.0.0.1:${serverPort}/r/${code.shortCode}`, server)
        await server.stop()
        const m = results[name]
        process.stdout.write(
          `round ${r}: ${name.padEnd(7)} ${Math.round(m.requestsPerSecond)} req/s  p99 ${m.p99.toFixed(2)} ms  CPU ${m.cpuPerRequestUs.toFixed(1)} µs/req\n`,
        )
      }
      rounds.push({ without: results.without, with: results.with })
    }
    const sum = (pick: (x: (typeof rounds)[number]) => number) => rounds.reduce((s, x) => s + pick(x), 0)
    const throughput =
      sum((x) => x.with?.requestsPerSecond ?? 0) / sum((x) => x.without?.requestsPerSecond ?? 1)
    const delivered = await receivers.stop()
    const summary = {
      connections: CONNECTIONS,
      seconds: MEASURE_S,
      webhooks: WEBHOOKS,
      rounds: rounds.map((x) => ({
        withoutRps: Math.round(x.without?.requestsPerSecond ?? 0),
        withRps: Math.round(x.with?.requestsPerSecond ?? 0),
        throughputRatio: round((x.with?.requestsPerSecond ?? 0) / (x.without?.requestsPerSecond ?? 1)),
        withoutP99Ms: round(x.without?.p99 ?? 0),
        withP99Ms: round(x.with?.p99 ?? 0),
      })),
      throughputRatio: round(throughput),
      requestsReceived: delivered,
      deliveries: outbox(hookedDb),
      target: { throughputRatio: '>= 0.9' },
    }
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`)
    process.stdout.write(
      `\nwebhooks: redirects with ${WEBHOOKS} webhooks (one timing out) at ${round(throughput)}x the throughput without (target >= 0.9): ${throughput >= 0.9 ? 'PASS' : 'FAIL'}\n`,
    )
  } finally {
    await receivers.stop().catch(() => 0)
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
