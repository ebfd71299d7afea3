/**
 * The redirect baseline: a bare node:http server that does what a redirect minimally must,
 * on the same SQLite file and with the same prepared better-sqlite3 lookup as qrctl, plus a
 * buffered insert of one row per request (written every 1000 requests or every second).
 * No user-agent parsing, visitor id, GeoIP, bot check, rollups, metrics or logging.
 *
 * `--enriched`: the same server plus what the contract asks of every counted scan (DESIGN §5:
 * bot check, device, browser and OS; the visitor's HMAC; country and city; the referrer's
 * host), with the server's own functions from its build, stored in the row. Still no rollups,
 * rules, limits, metrics or logging: a floor under what any qrctl redirect can cost.
 *
 *   node --import tsx redirect-baseline.ts <sqlite file> <port> [--enriched]
 */
import { createServer } from 'node:http'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import Database from 'better-sqlite3'
import type { ScanEvent } from '../server/src/modules/scans/scan-event.js'

const [file, port, mode] = process.argv.slice(2)
if (!file || !port) throw new Error('usage: redirect-baseline.ts <sqlite file> <port> [--enriched]')

/** What the server stores of a scan besides its code and time. */
type Enrichment = Omit<ScanEvent, 'qrCodeId' | 'scannedAt'>
type Enrich = (
  headers: Record<string, string | string[] | undefined>,
  address: string,
) => Enrichment | undefined
/** The server's scan-details and GeoIP modules, from its build (bench/ runs on the build). */
async function enricher(): Promise<Enrich> {
  const dist = (path: string) =>
    import(pathToFileURL(join(import.meta.dirname, '..', 'server', 'dist', path)).href)
  const { userAgentDetails, visitorId, referrerHost } = await dist('modules/scans/scan-details.js')
  const geo = await (await dist('geo/geoip.js')).openGeoIp(undefined)
  const secret = 'baseline-visitor-secret'
  return (headers, socketAddress) => {
    const agent = headers['user-agent'] as string | undefined
    const details = userAgentDetails(agent)
    if (details.isBot) return undefined
    const forwarded = headers['x-forwarded-for']
    const address = typeof forwarded === 'string' ? (forwarded.split(',')[0] ?? '').trim() : socketAddress
    const place = geo.lookup(address)
    return {
      device: details.device,
      browser: details.browser,
      os: details.os,
      country: place.country,
      city: place.city,
      referrer: referrerHost(headers.referer as string | undefined),
      visitorId: visitorId(secret, address, agent),
    }
  }
}
const enrich = mode === '--enriched' ? await enricher() : undefined

const db = new Database(file)
db.pragma('journal_mode = WAL')
db.pragma('synchronous = NORMAL')
const lookup = db.prepare<[string], { id: string; target_url: string | null; is_active: number }>(
  `select "qr_codes"."id", "qr_codes"."type", "qr_codes"."target_url", "qr_codes"."is_active", "qr_codes"."deleted_at",
     "accounts"."plan", "accounts"."subscription_status"
   from "qr_codes" inner join "accounts" on "accounts"."id" = "qr_codes"."account_id"
   where "qr_codes"."short_code" = ?`,
)
const insert = db.prepare(
  `insert into scans (qr_code_id, scanned_at, visitor_id, device, browser, os, country, city, referrer)
   values (?, ?, ?, 'other', null, null, null, null, ?)`,
)
const insertEnriched = db.prepare(
  `insert into scans (qr_code_id, scanned_at, visitor_id, device, browser, os, country, city, referrer)
   values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
)
/** A plain row binds 4 values, an enriched one 9. */
type Row = (string | null)[]
let buffer: Row[] = []
const writeAll = db.transaction((rows: Row[]) => {
  for (const row of rows) (row.length === 4 ? insert : insertEnriched).run(row)
})
const flush = () => {
  const rows = buffer
  buffer = []
  if (rows.length > 0) writeAll(rows)
}
setInterval(flush, 1000).unref()

const server = createServer((req, res) => {
  const url = req.url ?? ''
  if (!url.startsWith('/r/')) {
    res.writeHead(404).end()
    return
  }
  const row = lookup.get(url.slice(3))
  if (!row?.target_url || !row.is_active) {
    res.writeHead(404).end()
    return
  }
  res.writeHead(302, { Location: row.target_url, 'Cache-Control': 'no-store', 'Content-Length': '0' })
  res.end()
  if (enrich) {
    const scan = enrich(req.headers, req.socket.remoteAddress ?? '')
    if (scan)
      buffer.push([
        row.id,
        new Date().toISOString(),
        scan.visitorId,
        scan.device,
        scan.browser,
        scan.os,
        scan.country,
        scan.city,
        scan.referrer,
      ])
  } else
    buffer.push([
      row.id,
      new Date().toISOString(),
      req.headers['user-agent'] ?? '',
      req.headers.referer ?? 'direct',
    ])
  if (buffer.length >= 1000) flush()
})
server.keepAliveTimeout = 65_000
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('listening\n'))
process.once('SIGTERM', () => {
  server.close(() => {
    flush()
    db.close()
    process.exit(0)
  })
  server.closeIdleConnections()
})
