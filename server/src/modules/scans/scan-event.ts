import type { Device } from './scan-details.js'

/** One counted scan, as the redirect saw it. No address: only the visitor's HMAC. */
export interface ScanEvent {
  qrCodeId: string
  /** ISO-8601 UTC. */
  scannedAt: string
  visitorId: string
  device: Device
  browser: string | null
  os: string | null
  country: string | null
  city: string | null
  /** Referrer host, `direct`, or null when the header was not a URL. */
  referrer: string | null
}
