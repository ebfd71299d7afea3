import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { ScanBuffer } from './scan-buffer.js'
import type { ScanEvent } from './scan-event.js'
import { scanMetrics } from './scan-metrics.js'

const logger = pino({ level: 'silent' })

function scan(i: number): ScanEvent {
  return {
    qrCodeId: `code-${i}`,
    scannedAt: new Date(Date.UTC(2026, 10, 24, 0, 0, i)).toISOString(),
    visitorId: `visitor-${i}`,
    device: 'mobile',
    browser: 'Safari',
    os: 'iOS',
    country: 'DE',
    city: 'Berlin',
    referrer: 'direct',
  }
}

async function droppedSoFar(): Promise<number> {
  return (await scanMetrics.dropped.get()).values[0]?.value ?? 0
}

describe('the scan buffer at shutdown', () => {
  it('keeps trying a failing write until it succeeds, past three attempts', async () => {
    const stored: ScanEvent[] = []
    let attempts = 0
    const buffer = new ScanBuffer(async (events) => {
      attempts++
      if (attempts <= 6) throw new Error('database is locked')
      stored.push(...events)
      return events.length
    }, logger)
    for (let i = 0; i < 50; i++) buffer.push(scan(i))
    const dropped = await droppedSoFar()

    await buffer.close(10_000)

    expect(attempts).toBe(7)
    expect(stored.map((event) => event.qrCodeId)).toEqual(Array.from({ length: 50 }, (_, i) => `code-${i}`))
    expect(buffer.pending).toBe(0)
    expect(await droppedSoFar()).toBe(dropped)
  })

  it('waits for a write in flight when nothing else waits, and writes its batch again if it fails', async () => {
    const stored: ScanEvent[] = []
    let attempts = 0
    let release: () => void = () => {}
    const buffer = new ScanBuffer(async (events) => {
      attempts++
      if (attempts === 1) {
        // The timer's write, still running when close() is called, and then failing.
        await new Promise<void>((resolve) => {
          release = resolve
        })
        throw new Error('the scan writer thread exited (1)')
      }
      stored.push(...events)
      return events.length
    }, logger)
    for (let i = 0; i < 20; i++) buffer.push(scan(i))
    const inFlight = buffer.flush()
    expect(buffer.pending).toBe(0)

    let closed = false
    const closing = buffer.close(10_000).then(() => {
      closed = true
    })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(closed).toBe(false)
    release()
    await Promise.all([inFlight, closing])

    expect(attempts).toBe(2)
    expect(stored).toHaveLength(20)
    expect(buffer.pending).toBe(0)
  })

  it('gives up when its allowance is spent and counts what it could not write as dropped', async () => {
    const buffer = new ScanBuffer(async () => {
      throw new Error('database is locked')
    }, logger)
    for (let i = 0; i < 7; i++) buffer.push(scan(i))
    const dropped = await droppedSoFar()
    const started = Date.now()

    await buffer.close(300)

    expect(Date.now() - started).toBeGreaterThanOrEqual(290)
    expect(buffer.pending).toBe(0)
    expect(await droppedSoFar()).toBe(dropped + 7)
  })

  it('waits for the timer after a failed write, even when the writer refuses at once', async () => {
    let attempts = 0
    const buffer = new ScanBuffer(
      async () => {
        attempts++
        throw new Error('the scan writer is closed')
      },
      logger,
      { maxBatch: 5, intervalMs: 60_000 },
    )
    for (let i = 0; i < 20; i++) buffer.push(scan(i))
    // A timer fires only if the failures left the event loop alone.
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(attempts).toBeGreaterThan(0)
    expect(attempts).toBeLessThanOrEqual(16)
    expect(buffer.pending).toBe(20)
    await buffer.close(0)
  })
})

describe('the scan buffer numbering its scans', () => {
  it('gives a batch tried again its first number again, and the next batch the numbers after it', async () => {
    const batches: [firstSeq: number, first: string, length: number][] = []
    let fail = true
    const buffer = new ScanBuffer(
      async (events, firstSeq) => {
        batches.push([firstSeq, events[0]?.qrCodeId ?? '', events.length])
        if (fail) throw new Error('Connection terminated unexpectedly')
        return events.length
      },
      logger,
      { maxWrite: 3 },
    )
    for (let i = 0; i < 2; i++) buffer.push(scan(i))
    await buffer.flush()
    // The failed batch is back in front; a newer scan joins it.
    buffer.push(scan(2))
    fail = false
    await buffer.flush()
    buffer.push(scan(3))
    await buffer.flush()
    expect(batches).toEqual([
      [0, 'code-0', 2],
      [0, 'code-0', 3],
      [3, 'code-3', 1],
    ])
  })
})
