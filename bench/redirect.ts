/**
 * Redirect throughput and latency of the built server, as ratios against a bare node:http
 * baseline doing the same prepared SQLite lookup with buffered inserts, measured in the
 * same run on the same machine. Load generator on core 0, server on core 1.
 *
 *   npm run build && npm run bench:redirect -w @qrctl/bench
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import {
  freePort,
  type LoadResult,
  load,
  requireBuild,
  round,
  spawnPinned,
  startQrctl,
} from './redirect-support.js'

const CONNECTIONS = 50
const WARMUP_S = 3
const MEASURE_S = Number(process.env.BENCH_SECONDS ?? 10)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)

const AGENTS = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:121.0) Gecko/20100101 Firefox/121.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 309.0.0.28.109',
]

/** 50,000 distinct IPv4 addresses spread over the whole space (a few private: no place). */
const ADDRESSES = Array.from({ length: 50_000 }, (_, i) => {
  const n = 0x01000000 + i * 0x10f0f
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`
})

let n = 0
/**
 * A mix of scanners: 50,000 visitors (address and agent), each scanning a few times in a
 * run, and a referrer on every third scan.
 */
function scannerHeaders(): Record<string, string> {
  n++
  const headers: Record<string, string> = {
    'user-agent': AGENTS[n % AGENTS.length] as string,
    'x-forwarded-for': ADDRESSES[(n * 7919) % ADDRESSES.length] as string,
  }
  if (n % 3 === 0) headers.referer = 'https://www.instagram.com/'
  return headers
}

interface Measured extends LoadResult {
  /** Responses of warm-up and measurement. */
  answered: number
  /** Server CPU time per measured response, µs: steadier than req/s on a shared machine. */
  cpuPerRequestUs: number
}

/** A warm-up run, then the measured one. */
async function measure(url: string, server: { cpuMs(): number }): Promise<Measured> {
  const warm = await load({
    url,
    connections: CONNECTIONS,
    durationSeconds: WARMUP_S,
    headersPerRequest: scannerHeaders,
  })
  const cpuBefore = server.cpuMs()
  const result = await load({
    url,
    connections: CONNECTIONS,
    durationSeconds: MEASURE_S,
    headersPerRequest: scannerHeaders,
  })
  const cpuPerRequestUs = ((server.cpuMs() - cpuBefore) * 1000) / result.completed
  return { ...result, answered: warm.completed + result.completed, cpuPerRequestUs }
}

function describe(name: string, r: Measured): string {
  return `${name.padEnd(9)} ${Math.round(r.requestsPerSecond).toString().padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  CPU ${r.cpuPerRequestUs.toFixed(1)} µs/req  (${r.completed} responses, ${r.errors} errors)`
}

async function main() {
  requireBuild()
  const dir = mkdtempSync(join(tmpdir(), 'qrctl-bench-redirect-'))
  const dbFile = join(dir, 'qrctl.db')
  const baselineFile = join(dir, 'baseline.db')
  try {
    // One qrctl database with one dynamic code; the baseline gets a copy of it.
    const port = await freePort()
    const setup = await startQrctl(dbFile, port)
    const created = await fetch(`http://127.0.0.1:${port}/api/v1/qr-codes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${setup.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'bench',
        type: 'dynamic',
        contentType: 'url',
        content: 'https://example.com/landing',
      }),
    })
    const code = ((await created.json()) as { data: { id: string; shortCode: string } }).data
    await setup.stop()
    copyFileSync(dbFile, baselineFile)

    const rounds: { baseline: Measured; qrctl: Measured; counted: number }[] = []
    for (let r = 1; r <= ROUNDS; r++) {
      const basePort = await freePort()
      const base = await spawnPinned(
        [process.execPath, '--import', 'tsx', 'bench/redirect-baseline.ts', baselineFile, String(basePort)],
        {},
        /listening/,
      )
      const baseline = await measure(`http://127.0.0.1:${basePort}/r/${code.shortCode}`, base)
      await base.stop()
      process.stdout.write(`round ${r}: ${describe('baseline', baseline)}\n`)

      const before = totalScans(dbFile, code.id)
      const qrctlPort = await freePort()
      const server = await startQrctl(dbFile, qrctlPort)
      const qrctl = await measure(`http://127.0.0.1:${qrctlPort}/r/${code.shortCode}`, server)
      const exitCode = await server.stop()
      const counted = totalScans(dbFile, code.id) - before
      process.stdout.write(
        `round ${r}: ${describe('qrctl', qrctl)}; exit ${exitCode}, ${counted} scans stored\n`,
      )
      rounds.push({ baseline, qrctl, counted })
    }

    const sum = (pick: (x: (typeof rounds)[number]) => number) => rounds.reduce((s, x) => s + pick(x), 0)
    const throughput = sum((x) => x.qrctl.requestsPerSecond) / sum((x) => x.baseline.requestsPerSecond)
    const p99 = sum((x) => x.qrctl.p99) / sum((x) => x.baseline.p99)
    const cpu = sum((x) => x.baseline.cpuPerRequestUs) / sum((x) => x.qrctl.cpuPerRequestUs)
    const summary = {
      connections: CONNECTIONS,
      seconds: MEASURE_S,
      rounds: rounds.map((x) => ({
        baselineRps: Math.round(x.baseline.requestsPerSecond),
        qrctlRps: Math.round(x.qrctl.requestsPerSecond),
        throughputRatio: round(x.qrctl.requestsPerSecond / x.baseline.requestsPerSecond),
        baselineP99Ms: round(x.baseline.p99),
        qrctlP99Ms: round(x.qrctl.p99),
        p99Ratio: round(x.qrctl.p99 / x.baseline.p99),
        baselineCpuUsPerRequest: round(x.baseline.cpuPerRequestUs, 1),
        qrctlCpuUsPerRequest: round(x.qrctl.cpuPerRequestUs, 1),
        // Every 302 of warm-up and measurement is a browser's scan: all must be stored.
        scansStored: x.counted,
        redirectsAnswered: x.qrctl.answered,
      })),
      throughputRatio: round(throughput),
      p99Ratio: round(p99),
      // Baseline CPU per request over qrctl's: the throughput ratio a quiet machine would show.
      cpuEfficiencyRatio: round(cpu),
      targets: { throughputRatio: '>= 0.5', p99Ratio: '<= 2' },
    }
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`)
    const ok = throughput >= 0.5 && p99 <= 2
    process.stdout.write(
      `\nredirect: ${round(throughput)}x the baseline's throughput (target >= 0.5), p99 ${round(p99)}x (target <= 2), ` +
        `CPU per request ${round(cpu)}x as efficient: ${ok ? 'PASS' : 'FAIL'}\n`,
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function totalScans(dbFile: string, id: string): number {
  const db = new Database(dbFile, { readonly: true })
  try {
    const row = db.prepare('select total_scans from qr_codes where id = ?').get(id) as { total_scans: number }
    return Number(row.total_scans)
  } finally {
    db.close()
  }
}

await main()
