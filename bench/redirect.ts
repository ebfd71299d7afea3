/**
 * DESIGN §18: redirect throughput and latency of the built server, as ratios against a bare
 * node:http baseline doing the same prepared SQLite lookup with buffered inserts, measured in
 * the same run on the same machine, for a plain dynamic code and for one with 20 rules and a
 * scan limit in force. Load generator on core 0, server on core 1.
 *
 *   npm run build && npm run bench:redirect -w @qrctl/bench
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { freePort, requireBuild, round, spawnPinned, startQrctl } from './redirect-support.js'
import {
  describeRun,
  type Measured,
  measureRedirects,
  TWENTY_RULES,
  TWENTY_RULES_TARGET,
} from './scanners.js'

const CONNECTIONS = 50
const RUN = { connections: CONNECTIONS, warmupSeconds: 3, seconds: Number(process.env.BENCH_SECONDS ?? 10) }
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
/** DESIGN §18's goal, for a plain code and for one with rules and a scan limit in force. */
const TARGET = { throughputRatio: 0.8, p99Ratio: 1.5 }
const CODES = ['plain', 'rules'] as const
type CodeKind = (typeof CODES)[number]

async function main() {
  requireBuild()
  const dir = mkdtempSync(join(tmpdir(), 'qrctl-bench-redirect-'))
  const dbFile = join(dir, 'qrctl.db')
  const baselineFile = join(dir, 'baseline.db')
  try {
    // One qrctl database with a plain dynamic code and one with 20 rules (the match in the
    // last) and a scan limit, so every counted scan takes a reservation; the baseline gets a
    // copy and answers both short codes with its one lookup.
    const port = await freePort()
    const setup = await startQrctl(dbFile, port)
    const create = async (extra: Record<string, unknown>) => {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/qr-codes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${setup.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'bench',
          type: 'dynamic',
          contentType: 'url',
          content: 'https://example.com/landing',
          ...extra,
        }),
      })
      if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`)
      return ((await res.json()) as { data: { id: string; shortCode: string } }).data
    }
    const codes: Record<CodeKind, { id: string; shortCode: string }> = {
      plain: await create({}),
      rules: await create({ rules: TWENTY_RULES, maxScans: 1_000_000_000 }),
    }
    const check = await fetch(`http://127.0.0.1:${port}/r/${codes.rules.shortCode}`, {
      redirect: 'manual',
      headers: { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) Mobile/15E148' },
    })
    if (check.headers.get('location') !== TWENTY_RULES_TARGET) throw new Error('the last rule did not match')
    await setup.stop()
    copyFileSync(dbFile, baselineFile)

    type Round = { baseline: Measured; enriched: Measured } & Record<CodeKind, Measured & { counted: number }>
    const rounds: Round[] = []
    for (let r = 1; r <= ROUNDS; r++) {
      const basePort = await freePort()
      const base = await spawnPinned(
        [process.execPath, '--import', 'tsx', 'bench/redirect-baseline.ts', baselineFile, String(basePort)],
        {},
        /listening/,
      )
      const baseline = await measureRedirects(
        `http://127.0.0.1:${basePort}/r/${codes.plain.shortCode}`,
        base,
        RUN,
      )
      await base.stop()
      process.stdout.write(`round ${r}: ${describeRun('baseline', baseline)}\n`)
      // The floor: the bare server plus the enrichment every counted scan needs (see the file).
      const enrichedPort = await freePort()
      const enrichedServer = await spawnPinned(
        [
          process.execPath,
          '--import',
          'tsx',
          'bench/redirect-baseline.ts',
          baselineFile,
          String(enrichedPort),
          '--enriched',
        ],
        {},
        /listening/,
      )
      const enriched = await measureRedirects(
        `http://127.0.0.1:${enrichedPort}/r/${codes.plain.shortCode}`,
        enrichedServer,
        RUN,
      )
      await enrichedServer.stop()
      process.stdout.write(`round ${r}: ${describeRun('enriched', enriched)}\n`)

      const qrctlPort = await freePort()
      const server = await startQrctl(dbFile, qrctlPort)
      const measured: Partial<Record<CodeKind, Measured>> = {}
      const before = { plain: totalScans(dbFile, codes.plain.id), rules: totalScans(dbFile, codes.rules.id) }
      // Alternate which code goes first, so the growing scans table weighs on both alike.
      for (const kind of r % 2 === 1 ? CODES : [...CODES].reverse())
        measured[kind] = await measureRedirects(
          `http://127.0.0.1:${qrctlPort}/r/${codes[kind].shortCode}`,
          server,
          RUN,
        )
      const exitCode = await server.stop()
      const round = { baseline, enriched } as Round
      for (const kind of CODES) {
        const m = measured[kind] as Measured
        const counted = totalScans(dbFile, codes[kind].id) - before[kind]
        round[kind] = { ...m, counted }
        process.stdout.write(
          `round ${r}: ${describeRun(kind, m)}; ${counted} scans stored of ${m.answered} answered (exit ${exitCode})\n`,
        )
      }
      rounds.push(round)
    }

    const sum = (pick: (x: Round) => number) => rounds.reduce((s, x) => s + pick(x), 0)
    const ratios = Object.fromEntries(
      CODES.map((kind) => [
        kind,
        {
          throughputRatio: round(
            sum((x) => x[kind].requestsPerSecond) / sum((x) => x.baseline.requestsPerSecond),
          ),
          p99Ratio: round(sum((x) => x[kind].p99) / sum((x) => x.baseline.p99)),
          // Baseline CPU per request over qrctl's: the throughput ratio a quiet machine would show.
          cpuEfficiencyRatio: round(
            sum((x) => x.baseline.cpuPerRequestUs) / sum((x) => x[kind].cpuPerRequestUs),
          ),
        },
      ]),
    ) as Record<CodeKind, { throughputRatio: number; p99Ratio: number; cpuEfficiencyRatio: number }>
    // What the contract's enrichment alone costs against the bare server: the most any qrctl
    // redirect could reach, before rollups, rules, limits, metrics and logs.
    const enrichedFloor = {
      throughputRatio: round(
        sum((x) => x.enriched.requestsPerSecond) / sum((x) => x.baseline.requestsPerSecond),
      ),
      p99Ratio: round(sum((x) => x.enriched.p99) / sum((x) => x.baseline.p99)),
      cpuEfficiencyRatio: round(
        sum((x) => x.baseline.cpuPerRequestUs) / sum((x) => x.enriched.cpuPerRequestUs),
      ),
    }
    const summary = {
      connections: CONNECTIONS,
      seconds: RUN.seconds,
      rounds: rounds.map((x) => ({
        baselineRps: Math.round(x.baseline.requestsPerSecond),
        baselineP99Ms: round(x.baseline.p99),
        baselineCpuUsPerRequest: round(x.baseline.cpuPerRequestUs, 1),
        enrichedRps: Math.round(x.enriched.requestsPerSecond),
        enrichedP99Ms: round(x.enriched.p99),
        enrichedCpuUsPerRequest: round(x.enriched.cpuPerRequestUs, 1),
        ...Object.fromEntries(
          CODES.map((kind) => [
            kind,
            {
              rps: Math.round(x[kind].requestsPerSecond),
              throughputRatio: round(x[kind].requestsPerSecond / x.baseline.requestsPerSecond),
              p99Ms: round(x[kind].p99),
              p99Ratio: round(x[kind].p99 / x.baseline.p99),
              cpuUsPerRequest: round(x[kind].cpuPerRequestUs, 1),
              // Every 302 of warm-up and measurement is a browser's scan: all must be stored.
              scansStored: x[kind].counted,
              redirectsAnswered: x[kind].answered,
            },
          ]),
        ),
      })),
      ...ratios,
      enrichedBaseline: enrichedFloor,
      target: TARGET,
    }
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`)
    let ok = true
    for (const kind of CODES) {
      const { throughputRatio, p99Ratio, cpuEfficiencyRatio } = ratios[kind]
      const pass = throughputRatio >= TARGET.throughputRatio && p99Ratio <= TARGET.p99Ratio
      ok &&= pass
      process.stdout.write(
        `redirect (${kind}): ${throughputRatio}x the baseline's throughput (target >= ${TARGET.throughputRatio}), p99 ${p99Ratio}x (target <= ${TARGET.p99Ratio}), CPU per request ${cpuEfficiencyRatio}x as efficient: ${pass ? 'PASS' : 'FAIL'}\n`,
      )
    }
    process.stdout.write(
      `enriched baseline (the bare server + the enrichment of DESIGN §5, no rollups): ${enrichedFloor.throughputRatio}x the baseline's throughput, p99 ${enrichedFloor.p99Ratio}x, CPU per request ${enrichedFloor.cpuEfficiencyRatio}x as efficient\n`,
    )
    process.stdout.write(`redirect: ${ok ? 'PASS' : 'FAIL'}\n`)
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
