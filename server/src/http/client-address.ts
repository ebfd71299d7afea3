import type { IncomingMessage } from 'node:http'

/**
 * The one client-address rule (TRUST_PROXY as a hop count), for the rate limit of keyless
 * requests and for scans: the X-Forwarded-For entry that the last trusted proxy saw. Entries
 * left of it are the client's own words and are never believed. The same answer Express's
 * `req.ip` gives with `trust proxy` set to the hop count. Never logged.
 */
export function clientAddress(req: IncomingMessage, trustProxyHops: number): string {
  const socket = req.socket.remoteAddress ?? ''
  if (trustProxyHops === 0) return socket
  const header = req.headers['x-forwarded-for']
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
  if (forwarded.length === 0) return socket
  return forwarded[Math.max(0, forwarded.length - trustProxyHops)] as string
}
