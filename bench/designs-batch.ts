/**
 * A batch of 100 styled codes through the API (DESIGN §13, issue #16): POST /api/v1/qr-codes/batch
 * on the built server (server/dist, fresh SQLite file), timed from this process (core 0) from
 * request to answer, every item's decode check included. The baseline, in the same run, is the
 * same batch without a style (no decode check). Rounds alternate the two; medians. The server's
 * CPU time per batch (every thread) is given too: on a shared machine it moves less than the
 * wall clock. The load average is read before and after.
 *
 * The server runs the checks on as many threads as it has cores, so it is measured twice: pinned
 * to core 1 (one check thread) and given both cores (two check threads; this process only
 * waits for the answer meanwhile). BENCH_SERVER_CORES=1 (or 0,1) measures one of them.
 *
 * BENCH_BEFORE=DIR (another checkout, built, e.g. /work/main) measures its server too, in the
 * same run: for each placement, before and this tree one after the other, then again in the
 * other order, so a slow moment of the shared machine does not fall on one side only.
 *
 *   npm run build && npm run bench:designs-batch -w @qrctl/bench
 *   BENCH_ROUNDS=5 BENCH_BATCH=100 npm run bench:designs-batch -w @qrctl/bench
 *   BENCH_BEFORE=/work/main npm run bench:designs-batch -w @qrctl/bench
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Style } from '@qrctl/contract'
import sharp from 'sharp'
import { freePort, requireBuild, SERVER_MAIN, startQrctl } from './redirect-support.js'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const BATCH = Number(process.env.BENCH_BATCH ?? 100)
const PLACEMENTS = (process.env.BENCH_SERVER_CORES ?? '1;0,1').split(';')
const BEFORE = process.env.BENCH_BEFORE && join(process.env.BENCH_BEFORE, 'server/dist/main.js')

/** The design of bench:designs: dots, rounded finders, gradient, logo, box frame. */
const design = (assetId: string): Style => ({
  moduleShape: 'dot',
  finderShape: 'rounded',
  finderDotShape: 'rounded',
  gradient: { type: 'linear', colors: ['#1A237E', '#4A148C'], rotation: 45 },
  logo: { assetId, size: 0.2, padding: 1 },
  frame: { style: 'box', text: 'Scan for the menu' },
})

interface Api {
  base: string
  apiKey: string
}

async function post(api: Api, path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${api.base}/api/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: await res.json() }
}

async function uploadLogo(api: Api): Promise<string> {
  const png = await sharp({ create: { width: 256, height: 256, channels: 4, background: '#C62828' } })
    .png()
    .toBuffer()
  const res = await post(api, '/assets', { contentType: 'image/png', data: png.toString('base64') })
  const id = (res.body as { data?: { id: string } }).data?.id
  if (res.status !== 201 || !id)
    throw new Error(`logo upload failed: ${res.status} ${JSON.stringify(res.body)}`)
  return id
}

let serial = 0

/**
 * One batch of `BATCH` dynamic codes, each its own short link; every item must be created.
 * While it runs, GET /healthz is asked one at a time (50 ms apart): `probeMs` is its slowest
 * answer, how long the batch kept the server from answering anything else.
 */
async function batch(api: Api, style: Style | undefined): Promise<{ ms: number; probeMs: number }> {
  const codes = Array.from({ length: BATCH }, () => {
    const n = serial++
    return {
      name: `Bench ${n}`,
      type: 'dynamic',
      contentType: 'url',
      content: `https://shop.example.com/products/${n}?utm_source=qr`,
      ...(style && { style }),
    }
  })
  let answered = false
  const start = performance.now()
  const request = post(api, '/qr-codes/batch', { codes }).finally(() => {
    answered = true
  })
  const probes: number[] = []
  const probing = (async () => {
    while (!answered) {
      await new Promise((done) => setTimeout(done, 50))
      const asked = performance.now()
      await (await fetch(`${api.base}/healthz`)).arrayBuffer()
      probes.push(performance.now() - asked)
    }
  })()
  const res = await request
  const ms = performance.now() - start
  await probing
  const data = (res.body as { data?: { created: number; errors: string[] } }).data
  if (res.status !== 201 || data?.created !== BATCH)
    throw new Error(`batch failed: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`)
  return { ms, probeMs: Math.max(0, ...probes) }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0] ?? '?'

interface Figures {
  wall: { plain: number[]; styled: number[] }
  cpu: { plain: number[]; styled: number[] }
  /** The slowest /healthz answer during each styled batch. */
  probe: number[]
}

/** The rounds against one server (`main`, a build's server/dist/main.js) pinned to `cores`. */
async function measure(cores: string, main = SERVER_MAIN): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), 'qrctl-bench-designs-'))
  const port = await freePort()
  const server = await startQrctl(join(dir, 'qrctl.db'), port, { LOG_LEVEL: 'warn' }, cores, main)
  try {
    if (!server.apiKey) throw new Error(`no API key in the server's output:\n${server.output()}`)
    const api = { base: `http://127.0.0.1:${port}`, apiKey: server.apiKey }
    const style = design(await uploadLogo(api))
    // Warm-up: starts the check threads, loads the decoders' wasm and lets the JIT see every path.
    await batch(api, undefined)
    await batch(api, style)
    const figures: Figures = { wall: { plain: [], styled: [] }, cpu: { plain: [], styled: [] }, probe: [] }
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of round % 2 ? (['styled', 'plain'] as const) : (['plain', 'styled'] as const)) {
        const before = server.cpuMs()
        const { ms, probeMs } = await batch(api, kind === 'styled' ? style : undefined)
        figures.cpu[kind].push(server.cpuMs() - before)
        figures.wall[kind].push(ms)
        if (kind === 'styled') figures.probe.push(probeMs)
      }
    }
    return figures
  } finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

const seconds = (ms: number) => (ms / 1000).toFixed(2).padStart(6)

async function main(): Promise<void> {
  requireBuild()
  const loadBefore = loadAverage()
  let report = ''
  const line = (label: string, figures: Figures) => {
    const { wall, cpu, probe } = figures
    const styled = median(wall.styled)
    const plain = median(wall.plain)
    return (
      `${label}:\n` +
      `  plain (no style, no decode check)   ${seconds(plain)} s wall  ${seconds(median(cpu.plain))} s server CPU\n` +
      `  styled (decode check of each item)  ${seconds(styled)} s wall  ${seconds(median(cpu.styled))} s server CPU  ${(styled / plain).toFixed(1)}× plain\n` +
      `    per styled code: ${(styled / BATCH).toFixed(0)} ms wall, ${(median(cpu.styled) / BATCH).toFixed(0)} ms server CPU\n` +
      `    slowest GET /healthz during the styled batch: ${median(probe).toFixed(0)} ms\n` +
      `    ${BATCH === 100 ? '' : '(scaled to 100) '}100 styled codes in < 5 s: ${(styled * 100) / BATCH < 5000 ? 'met' : 'MISSED'}\n`
    )
  }
  for (const cores of PLACEMENTS) {
    const where = `server on core${cores.includes(',') ? 's' : ''} ${cores}`
    if (!BEFORE) {
      report += line(where, await measure(cores))
      continue
    }
    // before, this tree, this tree, before: each side once early and once late.
    const runs: Record<'before' | 'after', Figures[]> = { before: [], after: [] }
    for (const side of ['before', 'after', 'after', 'before'] as const) {
      const load = loadAverage()
      const figures = await measure(cores, side === 'before' ? BEFORE : SERVER_MAIN)
      runs[side].push(figures)
      report += line(
        `${where}, ${side === 'before' ? `before (${BEFORE})` : 'this tree'} (load ${load} before it)`,
        figures,
      )
    }
    const styled = (side: 'before' | 'after', kind: 'wall' | 'cpu') =>
      median(runs[side].flatMap((figures) => figures[kind].styled))
    report +=
      `  ${where}, styled, before / this tree (medians of both runs): ` +
      `wall ${(styled('before', 'wall') / styled('after', 'wall')).toFixed(3)}×, ` +
      `server CPU ${(styled('before', 'cpu') / styled('after', 'cpu')).toFixed(3)}×\n\n`
  }
  process.stdout.write(
    `POST /qr-codes/batch, ${BATCH} dynamic codes, ${ROUNDS} rounds, medians (SQLite; load average ${loadBefore} before, ${loadAverage()} after)\n\n${report}`,
  )
}

await main()
