/**
 * Render speed of @qrctl/render against `qrcode`'s own PNG and SVG output, measured in
 * the same run on the same core: renders per second and ratios, never absolute targets alone.
 * Uncached throughout (the renderer keeps no state); the cache-hit line shows what a repeat
 * request costs instead.
 *
 *   npm run bench:render -w @qrctl/bench          (pinned to core 0, straight from source)
 *   BENCH_ROUNDS=9 BENCH_MS=2000 npm run bench:render -w @qrctl/bench
 */
import { readFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { createRenderCache, renderPdf, renderPng, renderSvg } from '@qrctl/render'
import QRCode from 'qrcode'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const MEASURE_MS = Number(process.env.BENCH_MS ?? 1000)
const WARMUP_MS = 300

/** What codes carry: a dynamic code's short link (most codes), a long URL and a vCard. */
const PAYLOADS = [
  'https://qrctl.example/r/aZ3kP9q',
  'https://shop.example.com/products/linen-shirt-blue?utm_source=qr&utm_medium=print&utm_campaign=spring',
  [
    'BEGIN:VCARD',
    'VERSION:3.0',
    'N:Müller;Anna;;Dr.;',
    'FN:Dr. Anna Müller',
    'ORG:Example GmbH',
    'TEL;TYPE=WORK,VOICE:+49 30 1234567',
    'EMAIL:anna.mueller@example.com',
    'END:VCARD',
  ].join('\r\n'),
]

interface Candidate {
  name: string
  /** The candidate's baseline, by name; its line shows the ratio against it. */
  against?: string
  run: (payload: string) => unknown
}

const cache = createRenderCache()

const CANDIDATES: Candidate[] = [
  {
    name: 'qrcode.toBuffer PNG 512',
    run: (p) => QRCode.toBuffer(p, { width: 512, margin: 4, errorCorrectionLevel: 'M' }),
  },
  {
    name: 'qrcode.toBuffer PNG 1024',
    run: (p) => QRCode.toBuffer(p, { width: 1024, margin: 4, errorCorrectionLevel: 'M' }),
  },
  {
    name: 'renderPng 512',
    against: 'qrcode.toBuffer PNG 512',
    run: (p) => renderPng(p, null, { size: 512 }),
  },
  {
    name: 'renderPng 1024',
    against: 'qrcode.toBuffer PNG 1024',
    run: (p) => renderPng(p, null, { size: 1024 }),
  },
  {
    name: 'qrcode.toString SVG',
    run: (p) => QRCode.toString(p, { type: 'svg', margin: 4, errorCorrectionLevel: 'M' }),
  },
  { name: 'renderSvg', against: 'qrcode.toString SVG', run: (p) => renderSvg(p, null) },
  { name: 'renderPdf', against: 'renderPng 512', run: (p) => renderPdf(p, null) },
  { name: 'cache hit PNG 512', against: 'renderPng 512', run: (p) => cache.png(p, null, 512) },
]

/** Renders per second of `candidate` for about `ms`, cycling through the payloads. */
async function rate(candidate: Candidate, ms: number): Promise<number> {
  let count = 0
  const start = performance.now()
  let elapsed = 0
  do {
    const result = candidate.run(PAYLOADS[count % PAYLOADS.length]!)
    if (result instanceof Promise) await result
    count++
    elapsed = performance.now() - start
  } while (elapsed < ms)
  return (count * 1000) / elapsed
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

function affinity(): string {
  // taskset sets the mask this process inherited; Node reports no affinity, so read Linux's view.
  try {
    return readFileSync('/proc/self/status', 'utf8').match(/Cpus_allowed_list:\s*(\S+)/)?.[1] ?? '?'
  } catch {
    return '?'
  }
}

async function main(): Promise<void> {
  process.stdout.write(
    `node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'}, cores allowed: ${affinity()}\n` +
      `${ROUNDS} rounds × ${MEASURE_MS} ms per candidate, order rotated each round; medians\n\n`,
  )
  for (const candidate of CANDIDATES) await rate(candidate, WARMUP_MS)
  const samples = new Map<string, number[]>(CANDIDATES.map((c) => [c.name, []]))
  for (let round = 0; round < ROUNDS; round++) {
    // Rotating the order spreads slow moments of a shared machine over every candidate.
    const order = CANDIDATES.map((_, i) => CANDIDATES[(i + round) % CANDIDATES.length]!)
    for (const candidate of order) samples.get(candidate.name)!.push(await rate(candidate, MEASURE_MS))
  }
  const rates = new Map([...samples].map(([name, values]) => [name, median(values)]))
  const width = Math.max(...CANDIDATES.map((c) => c.name.length))
  for (const c of CANDIDATES) {
    const r = rates.get(c.name)!
    const spread = samples.get(c.name)!
    const ratio = c.against ? `  ${(r / rates.get(c.against)!).toFixed(1)}× ${c.against}` : ''
    process.stdout.write(
      `${c.name.padEnd(width)}  ${r.toFixed(0).padStart(8)} /s  ${(1000 / r).toFixed(3).padStart(8)} ms` +
        `  (rounds ${Math.min(...spread).toFixed(0)}–${Math.max(...spread).toFixed(0)})${ratio}\n`,
    )
  }
  const worst = Math.min(
    rates.get('renderPng 512')! / rates.get('qrcode.toBuffer PNG 512')!,
    rates.get('renderPng 1024')! / rates.get('qrcode.toBuffer PNG 1024')!,
  )
  process.stdout.write(
    `\nTarget: uncached PNG ≥ 3× qrcode.toBuffer at the same width: ${worst >= 3 ? 'met' : 'MISSED'} (worst ${worst.toFixed(1)}×)\n`,
  )
}

await main()
