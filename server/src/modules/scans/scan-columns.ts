import type { ScanEvent } from './scan-event.js'

/**
 * A batch of scans as one array per field: how the main thread posts a batch to the scan writer
 * thread (scan-writer.ts). postMessage clones N objects field by field, property names
 * included, and the thread rebuilt each one; nine arrays clone as nine lists of values.
 * Typed from `ScanEvent`, so a field added there fails to compile here until it travels too.
 */
export type ScanColumns = { [F in keyof ScanEvent]: ScanEvent[F][] }

export function toColumns(events: readonly ScanEvent[]): ScanColumns {
  const columns: ScanColumns = {
    qrCodeId: [],
    scannedAt: [],
    visitorId: [],
    device: [],
    browser: [],
    os: [],
    country: [],
    city: [],
    referrer: [],
  }
  for (const e of events) {
    columns.qrCodeId.push(e.qrCodeId)
    columns.scannedAt.push(e.scannedAt)
    columns.visitorId.push(e.visitorId)
    columns.device.push(e.device)
    columns.browser.push(e.browser)
    columns.os.push(e.os)
    columns.country.push(e.country)
    columns.city.push(e.city)
    columns.referrer.push(e.referrer)
  }
  return columns
}

export function fromColumns(columns: ScanColumns): ScanEvent[] {
  const events: ScanEvent[] = new Array(columns.qrCodeId.length)
  for (let i = 0; i < events.length; i++)
    events[i] = {
      qrCodeId: columns.qrCodeId[i] as string,
      scannedAt: columns.scannedAt[i] as string,
      visitorId: columns.visitorId[i] as string,
      device: columns.device[i] as ScanEvent['device'],
      browser: columns.browser[i] as string | null,
      os: columns.os[i] as string | null,
      country: columns.country[i] as string | null,
      city: columns.city[i] as string | null,
      referrer: columns.referrer[i] as string | null,
    }
  return events
}
