/**
 * The redirect baseline: a bare node:http server that does what a redirect minimally must,
 * on the same SQLite file and with the same prepared better-sqlite3 lookup as qrctl, plus a
 * buffered insert of one row per request (written every 1000 requests or every second).
 * No user-agent parsing, visitor id, GeoIP, bot check, rollups, metrics or logging.
 *
 *   node --import tsx redirect-baseline.ts <sqlite file> <port>
 */
import { createServer } from 'node:http'
import Database from 'better-sqlite3'

const [file, port] = process.argv.slice(2)
if (!file || !port) throw new Error('usage: redirect-baseline.ts <sqlite file> <port>')

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
type Row = [string, string, string, string]
let buffer: Row[] = []
const writeAll = db.transaction((rows: Row[]) => {
  for (const row of rows) insert.run(row)
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
