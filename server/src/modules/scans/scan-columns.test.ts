import { MessageChannel } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { fromColumns, type ScanColumns, toColumns } from './scan-columns.js'
import type { ScanEvent } from './scan-event.js'

/** Scans whose fields all differ from one another and from scan to scan, nulls included. */
const SCANS: ScanEvent[] = [
  {
    qrCodeId: 'code-1',
    scannedAt: '2026-11-27T11:00:00.001Z',
    visitorId: 'visitor-1',
    device: 'mobile',
    browser: 'Mobile Safari',
    os: 'iOS',
    country: 'DE',
    city: 'Berlin',
    referrer: 'www.instagram.com',
  },
  {
    qrCodeId: 'code-2',
    scannedAt: '2026-11-27T11:00:00.002Z',
    visitorId: 'visitor-2',
    device: 'other',
    browser: null,
    os: null,
    country: null,
    city: null,
    referrer: null,
  },
  {
    qrCodeId: 'code-3',
    scannedAt: '2026-11-27T11:00:00.003Z',
    visitorId: 'visitor-3',
    device: 'desktop',
    browser: 'Firefox',
    os: 'Linux',
    country: 'FR',
    city: 'Lyon',
    referrer: 'direct',
  },
]

/** What the scan writer thread receives: the columns as postMessage clones them. */
function postAndReceive(columns: ScanColumns): Promise<ScanColumns> {
  const { port1, port2 } = new MessageChannel()
  return new Promise((resolve) => {
    port2.once('message', (received: ScanColumns) => {
      port1.close()
      resolve(received)
    })
    port1.postMessage(columns)
  })
}

describe('scans posted to the writer thread as columns', () => {
  it('arrive with every field of every scan, in order', async () => {
    const received = fromColumns(await postAndReceive(toColumns(SCANS)))
    expect(received).toStrictEqual(SCANS)
  })

  it('carry an empty batch', async () => {
    expect(fromColumns(await postAndReceive(toColumns([])))).toStrictEqual([])
  })
})
