/**
 * DESIGN §14 / issue #17: rules are evaluated in the redirect's fast path without a database
 * write. Redirect throughput of a dynamic code with 20 rules (the match in the last) as a
 * ratio against a plain dynamic code, on the same built server in the same run, alternating
 * plain and ruled measurements. Target: at most 10 % fewer redirects per second.
 *
 *   npm run build && npm run bench:redirect-rules -w @qrctl/bench
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, requireBuild, round, startQrctl } from './redirect-support.js'
import {
  type Measured,
  measureRedirects,
  scannerHeaders,
  TWENTY_RULES,
  TWENTY_RULES_TARGET,
} from './scanners.js'

const CONNECTIONS = 50
const WARMUP_S = 2
const MEASURE_S = Number(process.env.BENCH_SECONDS ?? 8)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4)

const RUN = { connections: CONNECTIONS, warmupSeconds: WARMUP_S, seconds: MEASURE_S }

const line = (name: string, r: Measured) =>
  `${name} ${Math.round(r.requestsPerSecond)} req/s p99 ${r.p99.toFixed(2)} ms CPU ${r.cpuPerRequestUs.toFixed(1)} µs/req`

async function main() {
  requireBuild()
  const dir = mkdtempSync(join(tmpdir(), 'qrctl-bench-rules-'))
  try {
    const port = await freePort()
    const server = await startQrctl(join(dir, 'qrctl.db'), port)
    const create = async (extra: Record<string, unknown>) => {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/qr-codes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'bench',
          type: 'dynamic',
          contentType: 'url',
          content: 'https://example.com/plain',
          ...extra,
        }),
      })
      if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`)
      return ((await res.json()) as { data: { shortCode: string } }).data.shortCode
    }
    const plain = await create({})
    const ruled = await create({ rules: TWENTY_RULES })
    const check = await fetch(`http://127.0.0.1:${port}/r/${ruled}`, {
      redirect: 'manual',
      headers: scannerHeaders(),
    })
    if (check.headers.get('location') !== TWENTY_RULES_TARGET) throw new Error('the last rule did not match')

    // The server slows as its scans table grows, so each round measures plain, ruled, ruled,
    // plain (ABBA): the drift falls on both codes alike.
    const rounds: { plain: Measured; ruled: Measured }[] = []
    const plainUrl = `http://127.0.0.1:${port}/r/${plain}`
    const ruledUrl = `http://127.0.0.1:${port}/r/${ruled}`
    for (let r = 1; r <= ROUNDS; r++) {
      const first = r % 2 === 1
      const a = await measureRedirects(first ? plainUrl : ruledUrl, server, RUN)
      const b = await measureRedirects(first ? ruledUrl : plainUrl, server, RUN)
      const [p, q] = first ? [a, b] : [b, a]
      process.stdout.write(
        `round ${r}: ${line('plain', p)}; ${line('20 rules', q)} (${p.errors + q.errors} errors)\n`,
      )
      rounds.push({ plain: p, ruled: q })
    }
    await server.stop()
    const sum = (pick: (x: (typeof rounds)[number]) => number) => rounds.reduce((s, x) => s + pick(x), 0)
    const ratio = sum((x) => x.ruled.requestsPerSecond) / sum((x) => x.plain.requestsPerSecond)
    const cpu = sum((x) => x.plain.cpuPerRequestUs) / sum((x) => x.ruled.cpuPerRequestUs)
    const summary = {
      connections: CONNECTIONS,
      seconds: MEASURE_S,
      rules: TWENTY_RULES.length,
      rounds: rounds.map((x) => ({
        plainRps: Math.round(x.plain.requestsPerSecond),
        ruledRps: Math.round(x.ruled.requestsPerSecond),
        ratio: round(x.ruled.requestsPerSecond / x.plain.requestsPerSecond),
        plainP99Ms: round(x.plain.p99),
        ruledP99Ms: round(x.ruled.p99),
        plainCpuUsPerRequest: round(x.plain.cpuPerRequestUs, 1),
        ruledCpuUsPerRequest: round(x.ruled.cpuPerRequestUs, 1),
      })),
      throughputRatio: round(ratio),
      // Plain CPU per request over ruled: the throughput ratio a quiet machine would show.
      cpuEfficiencyRatio: round(cpu),
      target: '>= 0.9',
    }
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`)
    process.stdout.write(
      `\nredirect rules: a code with 20 rules (match in the last) answers ${round(ratio)}x the plain code's redirects per second (target >= 0.9), CPU per request ${round(cpu)}x: ${ratio >= 0.9 ? 'PASS' : 'FAIL'}\n`,
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
