import SqliteDatabase from 'better-sqlite3'
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { splitWindow } from '../../modules/analytics/window.js'
import { countByValue, countCodeVisitors } from '../../modules/analytics/window.repository.js'
import type { ScanEvent } from '../../modules/scans/scan-event.js'
import { rollUp } from '../../modules/scans/scan-rollup.js'
import { windowRows } from '../../modules/scans/scan-windows.js'
import { gapChanges } from '../../modules/scans/visitor-gaps.js'
import { createPostgresDatabase, testDialects as dialects } from '../../testing/fixtures.js'
import type { Database } from '../schema.js'
import { migrations } from './index.js'

const V1 = '2026_11_24_1210_unique_external_id'

/** A year of scans from a few hundred visitors, at any minute, every dimension varied. */
function someScans(codes: string[], n: number): ScanEvent[] {
  let seed = 42
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
    return seed / 2 ** 31
  }
  const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)] as T
  const start = Date.parse('2025-11-01T00:00:00.000Z')
  return Array.from({ length: n }, () => ({
    qrCodeId: pick(codes),
    scannedAt: new Date(start + Math.floor(random() * 365 * 86_400_000)).toISOString(),
    visitorId: `v${Math.floor(random() * 300)}`,
    device: pick(['mobile', 'tablet', 'desktop', 'other'] as const),
    browser: pick(['Chrome', 'Mobile Safari', null]),
    os: pick(['iOS', 'Android', null]),
    country: pick(['NP', 'US', 'DE', null]),
    city: pick(['Kathmandu', 'New York', null]),
    referrer: pick(['direct', 'news.example', null]),
  }))
}

async function open(
  dialect: (typeof dialects)[number],
): Promise<{ db: Kysely<Database>; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new SqliteDatabase(':memory:') }),
    })
    return { db, drop: () => db.destroy() }
  }
  const database = await createPostgresDatabase('migrate')
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url }) }),
  })
  return {
    db,
    drop: async () => {
      await db.destroy()
      await database.drop()
    },
  }
}

describe.each(dialects)('the scan window migrations on %s', (dialect) => {
  let handle: Awaited<ReturnType<typeof open>> | undefined
  afterEach(async () => {
    await handle?.drop()
    handle = undefined
  })

  it('back-fill a v1 database with scans exactly as the live write path would have written them', async () => {
    handle = await open(dialect)
    const { db } = handle
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo(V1)).error).toBeUndefined()
    const now = '2026-11-24T12:00:00.000Z'
    await db
      .insertInto('accounts')
      .values({ id: 'acc', name: 'a', plan: 'pro', subscription_status: 'active', created_at: now })
      .execute()
    const codes = ['code-a', 'code-b']
    for (const [i, id] of codes.entries())
      await db
        .insertInto('qr_codes')
        .values({
          id,
          account_id: 'acc',
          name: id,
          type: 'dynamic',
          content_type: 'url',
          content: 'https://example.com',
          short_code: `short${i}`,
          target_url: 'https://example.com',
          is_active: 1,
          created_at: now,
          updated_at: now,
        })
        .execute()
    // A v1 database: the scans and the v1 rollups, as v1 wrote them.
    const events = someScans(codes, 3_000)
    for (let i = 0; i < events.length; i += 500)
      await db
        .insertInto('scans')
        .values(
          events.slice(i, i + 500).map((e) => ({
            qr_code_id: e.qrCodeId,
            scanned_at: e.scannedAt,
            visitor_id: e.visitorId,
            device: e.device,
            browser: e.browser,
            os: e.os,
            country: e.country,
            city: e.city,
            referrer: e.referrer,
          })),
        )
        .execute()
    const v1 = rollUp(events)
    for (const [id, n] of v1.scansPerCode)
      await db.updateTable('qr_codes').set({ total_scans: n }).where('id', '=', id).execute()
    for (let i = 0; i < v1.daily.length; i += 500)
      await db
        .insertInto('scan_daily')
        .values(v1.daily.slice(i, i + 500))
        .execute()
    for (let i = 0; i < v1.totals.length; i += 500)
      await db
        .insertInto('scan_totals')
        .values(v1.totals.slice(i, i + 500))
        .execute()

    expect((await migrator.migrateToLatest()).error).toBeUndefined()

    const expected = windowRows(events)
    const quarters = await db.selectFrom('scan_quarters').selectAll().execute()
    const key = (r: { qr_code_id: string; dimension: string; quarter: number; value: string }) =>
      `${r.qr_code_id}|${r.dimension}|${r.quarter}|${r.value}`
    const stored = new Map(quarters.map((r) => [key({ ...r, quarter: Number(r.quarter) }), Number(r.count)]))
    expect(stored).toEqual(new Map(expected.quarters.map((r) => [key(r), r.count])))
    const dates = await db.selectFrom('scan_visitor_dates').selectAll().execute()
    const dateKey = (r: { qr_code_id: string; day: string; visitor_id: string }) =>
      `${r.qr_code_id}|${r.day}|${r.visitor_id}`
    expect(new Set(dates.map(dateKey))).toEqual(new Set(expected.visitorDates.map(dateKey)))
    // Not a scan lost: the quarter-hour counts add up to each code's total.
    for (const [id, n] of v1.scansPerCode) {
      const sum = await db
        .selectFrom('scan_quarters')
        .select((eb) => eb.fn.sum<number>('count').as('n'))
        .where('qr_code_id', '=', id)
        .where('dimension', '=', 'scans')
        .executeTakeFirstOrThrow()
      expect(Number(sum.n)).toBe(n)
    }
    // The running totals: each value's quarter hours in order, counts summed up to each.
    const runningRows = await db.selectFrom('scan_running').selectAll().execute()
    const sums = new Map<string, number>()
    const expectedRunning = new Map<string, [number, number]>()
    for (const r of [...expected.quarters].sort((a, b) =>
      a.qr_code_id < b.qr_code_id ? -1 : a.qr_code_id > b.qr_code_id ? 1 : key(a) < key(b) ? -1 : 1,
    )) {
      const value = `${r.qr_code_id}|${r.dimension}|${r.value}`
      sums.set(value, (sums.get(value) ?? 0) + r.count)
      expectedRunning.set(key(r), [r.count, sums.get(value) as number])
    }
    expect(
      new Map(
        runningRows.map((r) => [
          key({ ...r, quarter: Number(r.quarter) }),
          [Number(r.count), Number(r.running)],
        ]),
      ),
    ).toEqual(expectedRunning)
    // The visitor gaps: each visitor's days in order, (day, previous day) counted, dated ones
    // summed over the previous day.
    const daysOf = new Map<string, Set<string>>()
    for (const e of events) {
      const key = `${e.qrCodeId}|${e.visitorId}`
      const set = daysOf.get(key) ?? new Set<string>()
      set.add(e.scannedAt.slice(0, 10))
      daysOf.set(key, set)
    }
    const counts = new Map<string, number>()
    for (const [key, days] of daysOf) {
      const code = key.split('|')[0] as string
      for (const c of gapChanges([], [...days].sort())) {
        const k = `${code}|${c.day}|${c.previousDay}`
        counts.set(k, (counts.get(k) ?? 0) + c.by)
      }
    }
    const prefixes = new Map<string, number>()
    const sortedKeys = [...counts.keys()].sort()
    const running = new Map<string, number>()
    for (const k of sortedKeys) {
      const [code, day, previous] = k.split('|') as [string, string, string]
      if (previous === '') prefixes.set(k, counts.get(k) as number)
      else {
        const sum = (running.get(`${code}|${day}`) ?? 0) + (counts.get(k) as number)
        running.set(`${code}|${day}`, sum)
        prefixes.set(k, sum)
      }
    }
    // Each visitor-day's first and last quarter hour (as the write path computes them) and the
    // visit days before and after it.
    const links = new Map<string, [string, string]>()
    for (const [key, days] of daysOf) {
      const [code, visitor] = key.split('|') as [string, string]
      const sorted = [...days].sort()
      sorted.forEach((day, i) => {
        links.set(`${code}|${day}|${visitor}`, [sorted[i - 1] ?? '', sorted[i + 1] ?? ''])
      })
    }
    expect(
      new Map(
        dates.map((r) => [
          dateKey(r),
          [Number(r.first_quarter), Number(r.last_quarter), r.previous_day, r.next_day],
        ]),
      ),
    ).toEqual(
      new Map(
        expected.visitorDates.map((r) => [
          dateKey(r),
          [r.first_quarter, r.last_quarter, ...(links.get(dateKey(r)) as [string, string])],
        ]),
      ),
    )
    const gaps = await db.selectFrom('scan_visitor_gaps').selectAll().execute()
    expect(
      new Map(gaps.map((r) => [`${r.qr_code_id}|${r.day}|${r.previous_day}`, Number(r.visitors)])),
    ).toEqual(prefixes)
    // Which answer every window as the scans do.
    let seed = 3
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed / 2 ** 31
    }
    const start = Date.parse('2025-10-25T00:00:00.000Z')
    for (let i = 0; i < 120; i++) {
      const from = start + Math.floor(random() * 380) * 86_400_000 + Math.floor(random() * 96) * 900_000
      const to = from + Math.floor(random() * 40 * 96 + 1) * 900_000
      const code = codes[i % 2] as string
      const expected = new Set(
        events
          .filter(
            (e) => e.qrCodeId === code && Date.parse(e.scannedAt) >= from && Date.parse(e.scannedAt) < to,
          )
          .map((e) => e.visitorId),
      ).size
      const window = `${new Date(from).toISOString()} – ${new Date(to).toISOString()}`
      expect(await countCodeVisitors(db, code, splitWindow(from, to)), window).toBe(expected)
      // And the top lists' counts (long partial days are read as their day less the rest).
      const values = new Map<string, number>()
      for (const e of events) {
        const at = Date.parse(e.scannedAt)
        if (e.qrCodeId !== code || at < from || at >= to) continue
        for (const [dimension, value] of [
          ['device', e.device],
          ['country', e.country ?? 'Unknown'],
          ['referrer', e.referrer ?? 'Unknown'],
        ] as const) {
          const k = `${dimension}|${value}`
          values.set(k, (values.get(k) ?? 0) + 1)
        }
      }
      const counted = await countByValue(db, { ids: [code] }, splitWindow(from, to), [
        'device',
        'country',
        'referrer',
      ])
      expect(new Map(counted.map((r) => [`${r.dimension}|${r.value}`, r.count])), window).toEqual(values)
      // The same from the rollup rows inside the window (a code set too large for running totals).
      const read = await countByValue(db, { accountId: 'acc', within: [code] }, splitWindow(from, to), [
        'device',
        'country',
        'referrer',
      ])
      expect(new Map(read.map((r) => [`${r.dimension}|${r.value}`, r.count])), window).toEqual(values)
    }
    expect((await migrator.migrateTo(V1)).error).toBeUndefined()
  })
})
