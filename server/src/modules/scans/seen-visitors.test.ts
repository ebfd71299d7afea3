import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type DatabaseHandle, migrateToLatest } from '../../db/database.js'
import { insertAccount, insertDynamicCodes, openTestDatabase, testDialects } from '../../testing/fixtures.js'
import type { ScanEvent } from './scan-event.js'
import { writeScans } from './scans.service.js'
import { SeenVisitors } from './seen-visitors.js'

const T0 = Date.parse('2026-11-20T23:15:00.000Z')

/**
 * What a process remembers of the visitors it wrote only saves statements: a database written
 * with it holds exactly what one written without it holds, whatever the scans (repeats in the
 * same quarter hour, later quarters, earlier ones, the next UTC day).
 */
describe.each(testDialects)('SeenVisitors on %s', (dialect) => {
  const handles: DatabaseHandle[] = []
  const drops: (() => Promise<void>)[] = []
  beforeAll(async () => {
    for (const name of ['seen', 'unseen']) {
      const { handle, drop } = await openTestDatabase(dialect, name)
      await migrateToLatest(handle.db)
      await insertAccount(handle.db, 'acc', '2026-01-01T00:00:00.000Z')
      await insertDynamicCodes(handle.db, 'acc', ['aaaaaaa', 'bbbbbbb'], '2026-01-01T00:00:00.000Z')
      handles.push(handle)
      drops.push(drop)
    }
  })
  afterAll(async () => {
    for (const drop of drops) await drop()
  })

  it('skips only visitor-day rows the database holds as they are', async () => {
    let seed = 11
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed / 2 ** 31
    }
    const [withSeen, without] = handles as [DatabaseHandle, DatabaseHandle]
    const seen = new SeenVisitors()
    let now = T0
    for (let b = 0; b < 30; b++) {
      // Mostly minutes on, sometimes back a few quarters (another process's late batch).
      now += random() < 0.15 ? -20 * 60_000 : Math.floor(random() * 15) * 60_000
      const events: ScanEvent[] = Array.from({ length: 1 + Math.floor(random() * 40) }, () => ({
        qrCodeId: random() < 0.7 ? 'code-a' : 'code-b',
        scannedAt: new Date(now + Math.floor(random() * 60_000)).toISOString(),
        visitorId: `v${Math.floor(random() * 12)}`,
        device: 'mobile',
        browser: null,
        os: null,
        country: null,
        city: null,
        referrer: null,
      }))
      events.sort((x, y) => (x.scannedAt < y.scannedAt ? -1 : 1))
      await writeScans({ db: withSeen.db, dialect }, events, seen)
      await writeScans({ db: without.db, dialect }, events)
    }
    for (const table of ['scan_visitor_dates', 'scan_visitor_gaps', 'scan_visitor_days'] as const) {
      const read = (handle: DatabaseHandle) =>
        handle.db.selectFrom(table).selectAll().execute() as Promise<Record<string, unknown>[]>
      const rows = (list: Record<string, unknown>[]) =>
        list.map((r) => JSON.stringify(Object.entries(r).map(([k, v]) => [k, String(v)]))).sort()
      expect(rows(await read(withSeen)), table).toEqual(rows(await read(without)))
    }
    const dates = await withSeen.db.selectFrom('scan_visitor_dates').selectAll().execute()
    expect(new Set(dates.map((d) => d.day)).size).toBeGreaterThan(1)
  })

  it('covers a day only within the quarter hours written for it, and forgets them for a new day', () => {
    const seen = new SeenVisitors()
    const row = (day: string, first: number, last: number) => ({
      qr_code_id: 'code-a',
      visitor_id: 'v',
      day,
      first_quarter: first,
      last_quarter: last,
    })
    seen.remember(
      [{ qr_code_id: 'code-a', visitor_id: 'v', last_day: '2026-11-20' }],
      [row('2026-11-20', 10, 12)],
    )
    expect(seen.covers(row('2026-11-20', 11, 12))).toBe(true)
    expect(seen.covers(row('2026-11-20', 9, 9))).toBe(false)
    expect(seen.covers(row('2026-11-20', 13, 13))).toBe(false)
    seen.remember(
      [{ qr_code_id: 'code-a', visitor_id: 'v', last_day: '2026-11-20' }],
      [row('2026-11-20', 13, 13)],
    )
    expect(seen.covers(row('2026-11-20', 10, 13))).toBe(true)
    seen.remember(
      [{ qr_code_id: 'code-a', visitor_id: 'v', last_day: '2026-11-21' }],
      [row('2026-11-20', 14, 14)],
    )
    expect(seen.covers(row('2026-11-20', 10, 10))).toBe(false)
    expect(seen.covers(row('2026-11-21', 0, 0))).toBe(false)
    expect(seen.isCurrent('code-a', 'v', '2026-11-21')).toBe(true)
  })
})
