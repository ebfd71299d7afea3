import { randomUUID } from 'node:crypto'
import type { Ctx } from '../../context.js'
import { type GeoLocation, openGeoIp } from '../../geo/geoip.js'
import { ScanBuffer, type ScanBufferOptions } from './scan-buffer.js'
import { pseudonym, referrerHost, type UserAgentDetails, visitorId } from './scan-details.js'
import { createScanWriter } from './scan-writer.js'
import { loadVisitorSecret } from './scans.service.js'

/**
 * One scan as the redirect saw it. The agent's details and the place are the ones its rules
 * asked about, when they did: each is worked out once per request, by the redirect.
 */
export interface ScanRequest {
  qrCodeId: string
  /** The client address; used for the visitor id, then forgotten. */
  ip: string
  userAgent: string | undefined
  /** `userAgentDetails(userAgent)`. */
  agent: UserAgentDetails
  /** `place(ip)`. */
  place: GeoLocation
  referer: string | undefined
}

export interface ScanRecorder {
  /** Buffers one scan; the redirect has decided it counts (not a bot, not HEAD). */
  record(request: ScanRequest): void
  /** The place of a client address (GeoIP), for redirect rules; the address is not kept. */
  place(ip: string): GeoLocation
  /** An HMAC of `text` under the visitor secret, for state kept about a client (its address never stored). */
  pseudonym(text: string): string
  /** Scans waiting in memory. */
  pending(): number
  /** Writes what waits now. */
  flush(): Promise<void>
  /** Stops the timer and writes everything that waits, retrying for up to SHUTDOWN_TIMEOUT_MS. */
  close(): Promise<void>
}

/** Loads the visitor secret and the GeoIP database, then writes buffered scans in the background. */
export async function startScanRecorder(
  ctx: Ctx,
  options: Partial<ScanBufferOptions> = {},
): Promise<ScanRecorder> {
  const [secret, geoip] = await Promise.all([loadVisitorSecret(ctx), openGeoIp(ctx.config.geoipDb)])
  const writer = createScanWriter(ctx)
  await writer.ready
  // This buffer's scans are numbered under an id of its own, so a retried batch is stored once.
  const writerId = randomUUID()
  const buffer = new ScanBuffer(
    (events, firstSeq) => writer.write(events, { writerId, firstSeq, at: ctx.clock.now().toISOString() }),
    ctx.logger,
    options,
  )
  buffer.start()
  return {
    record({ qrCodeId, ip, userAgent, agent, place, referer }) {
      buffer.push({
        qrCodeId,
        scannedAt: ctx.clock.now().toISOString(),
        visitorId: visitorId(secret, ip, userAgent),
        device: agent.device,
        browser: agent.browser,
        os: agent.os,
        country: place.country,
        city: place.city,
        referrer: referrerHost(referer),
      })
    },
    place: (ip) => geoip.lookup(ip),
    pseudonym: (text) => pseudonym(secret, text),
    pending: () => buffer.pending,
    flush: () => buffer.flush(),
    close: async () => {
      await buffer.close(ctx.config.shutdownTimeoutMs)
      await writer.close()
    },
  }
}
