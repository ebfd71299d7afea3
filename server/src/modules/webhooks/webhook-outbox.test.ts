import { Migrator } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../config.js'
import { type DatabaseHandle, openDatabase } from '../../db/database.js'
import { migrations } from '../../db/migrations/index.js'
import { ManualClock } from '../../lib/clock.js'
import { randomIds } from '../../lib/ids.js'
import { insertAccount, insertDynamicCodes } from '../../testing/fixtures.js'
import type { ScanEvent } from '../scans/scan-event.js'
import { writeScans } from '../scans/scans.service.js'
import { appendScanEvents, fanOutEvents } from './webhook-outbox.js'
import { insertWebhook } from './webhooks.repository.js'

const NOW = '2026-11-24T12:00:00.000Z'

describe('the outbox of scan.created', () => {
  let handle: DatabaseHandle
  const config = loadConfig({ DATABASE_URL: 'file::memory:' })
  const ctx = () => ({ ...handle, config, clock: new ManualClock(new Date(NOW)), ids: randomIds })

  beforeEach(async () => {
    handle = openDatabase(config.database)
    const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateToLatest()).error).toBeUndefined()
    const { db } = handle
    await insertAccount(db, 'acc', NOW)
    await insertDynamicCodes(db, 'acc', ['aaaaaaa', 'bbbbbbb'], NOW)
    // One webhook for every code, one for code-b only.
    for (const [id, qrCodeIds] of [
      ['w-all', null],
      ['w-b', ['code-b']],
    ] as const)
      await insertWebhook(db, {
        id,
        accountId: 'acc',
        url: 'https://hooks.example.com/',
        description: null,
        events: ['scan.created'],
        qrCodeIds: qrCodeIds && [...qrCodeIds],
        isActive: true,
        disabledReason: null,
        secret: 'whsec_x',
        previousSecret: null,
        previousSecretUntil: null,
        consecutiveFailures: 0,
        createdAt: '2026-11-01T00:00:00.000Z',
        updatedAt: NOW,
      })
  })
  afterEach(() => handle.close())

  const scan = (i: number, qrCodeId: string): ScanEvent => ({
    qrCodeId,
    scannedAt: new Date(Date.parse(NOW) - 1000 * (500 - i)).toISOString(),
    visitorId: `visitor-${i % 7}`,
    device: i % 2 ? 'mobile' : 'desktop',
    browser: i % 3 ? 'Chrome' : null,
    os: 'iOS',
    country: i % 5 ? 'NZ' : null,
    city: 'Auckland',
    referrer: i % 4 ? 'direct' : null,
  })

  const store = (scans: ScanEvent[]) =>
    writeScans(ctx(), scans, undefined, (trx, ids) => appendScanEvents(ctx(), trx, ids))

  it('bundles a batch by scan ids and unpacks each scan into its event, with an id of its own', async () => {
    // A code of an account without webhooks in the same batch: its scans are in no bundle.
    await insertAccount(handle.db, 'other', NOW)
    await insertDynamicCodes(handle.db, 'other', ['ooooooo'], NOW)
    const all = Array.from({ length: 500 }, (_, i) =>
      scan(i, i % 10 === 9 ? 'code-o' : i % 3 ? 'code-a' : 'code-b'),
    )
    const scans = all.filter((s) => s.qrCodeId !== 'code-o')
    expect(scans).toHaveLength(450)
    expect(await store(all)).toBe(500)
    const bundles = await handle.db.selectFrom('webhook_events').selectAll().orderBy('id').execute()
    // 200 scans a bundle, named by runs of their ids (the other account's scans left out).
    expect(bundles.map((b) => b.is_bundle)).toEqual([1, 1, 1])
    const ids = (
      await handle.db
        .selectFrom('scans')
        .select('id')
        .where('qr_code_id', '!=', 'code-o')
        .orderBy('id')
        .execute()
    ).map((r) => Number(r.id))
    const named = bundles.flatMap((b) =>
      (JSON.parse(b.body ?? '').runs as [number, number][]).flatMap(([first, last]) =>
        Array.from({ length: last - first + 1 }, (_, i) => first + i),
      ),
    )
    expect(named.sort((a, b) => a - b)).toEqual(ids)
    expect(bundles.every((b) => (b.body ?? '').length < 1000)).toBe(true)

    // One bundle a take, however many the limit allows: each take is one step of the event loop.
    expect(await fanOutEvents(ctx(), 10)).toBe(1)
    expect(
      await handle.db.selectFrom('webhook_events').select('id').where('is_bundle', '=', 1).execute(),
    ).toHaveLength(2)
    while ((await fanOutEvents(ctx(), 10)) > 0);
    const events = await handle.db.selectFrom('webhook_events').selectAll().execute()
    expect(events).toHaveLength(450)
    expect(events.every((e) => e.is_bundle === 0 && e.is_fanned_out === 1)).toBe(true)
    expect(new Set(events.map((e) => e.id)).size).toBe(450)
    expect(events.every((e) => /^msg_[0-9a-f]{32}$/.test(e.id))).toBe(true)
    const bodies = events
      .map((e) => JSON.parse(e.body ?? ''))
      .sort((x, y) => (x.timestamp < y.timestamp ? -1 : 1))
    expect(bodies).toEqual(
      scans.map((s) => ({
        type: 'scan.created',
        timestamp: s.scannedAt,
        data: {
          qrCodeId: s.qrCodeId,
          shortCode: s.qrCodeId === 'code-a' ? 'aaaaaaa' : 'bbbbbbb',
          scannedAt: s.scannedAt,
          device: s.device,
          browser: s.browser ?? 'Unknown',
          os: s.os,
          country: s.country ?? 'Unknown',
          city: s.city,
          referrer: s.referrer ?? 'Unknown',
          visitorId: s.visitorId,
        },
      })),
    )
    const byEvent = new Map(events.map((e) => [e.id, e.qr_code_id]))
    const deliveries = await handle.db.selectFrom('webhook_deliveries').selectAll().execute()
    expect(deliveries.filter((d) => d.webhook_id === 'w-all')).toHaveLength(450)
    const toB = deliveries.filter((d) => d.webhook_id === 'w-b')
    expect(toB).toHaveLength(150)
    expect(toB.every((d) => byEvent.get(d.event_id) === 'code-b')).toBe(true)
  })

  it('still unpacks a bundle that copied its scans (before bundles named them by id)', async () => {
    const copied = {
      codes: [['code-b', 'bbbbbbb']],
      scans: [[0, NOW, 'mobile', null, 'iOS', 'NZ', null, 'direct', 'visitor-1']],
    }
    await handle.db
      .insertInto('webhook_events')
      .values({
        id: 'msg_bundle',
        account_id: 'acc',
        type: 'scan.created',
        qr_code_id: null,
        body: JSON.stringify(copied),
        is_fanned_out: 0,
        is_bundle: 1,
        created_at: NOW,
      })
      .execute()
    expect(await fanOutEvents(ctx(), 10)).toBe(1)
    const events = await handle.db.selectFrom('webhook_events').selectAll().execute()
    expect(events.map((e) => [e.qr_code_id, JSON.parse(e.body ?? '')])).toEqual([
      [
        'code-b',
        {
          type: 'scan.created',
          timestamp: NOW,
          data: {
            qrCodeId: 'code-b',
            shortCode: 'bbbbbbb',
            scannedAt: NOW,
            device: 'mobile',
            browser: 'Unknown',
            os: 'iOS',
            country: 'NZ',
            city: 'Unknown',
            referrer: 'direct',
            visitorId: 'visitor-1',
          },
        },
      ],
    ])
    expect(
      await handle.db.selectFrom('webhook_deliveries').select('webhook_id').orderBy('webhook_id').execute(),
    ).toEqual([{ webhook_id: 'w-all' }, { webhook_id: 'w-b' }])
  })

  it('still unpacks a bundle written before the compact form, with the ids it was given', async () => {
    const legacy = {
      ids: ['msg_1', 'msg_2'],
      qrCodeIds: ['code-a', 'code-b'],
      events: [
        { type: 'scan.created', timestamp: NOW, data: { qrCodeId: 'code-a', n: 1 } },
        { type: 'scan.created', timestamp: NOW, data: { qrCodeId: 'code-b', n: 2 } },
      ],
    }
    await handle.db
      .insertInto('webhook_events')
      .values({
        id: 'msg_bundle',
        account_id: 'acc',
        type: 'scan.created',
        qr_code_id: null,
        body: JSON.stringify(legacy),
        is_fanned_out: 0,
        is_bundle: 1,
        created_at: NOW,
      })
      .execute()
    expect(await fanOutEvents(ctx(), 10)).toBe(1)
    const events = await handle.db.selectFrom('webhook_events').selectAll().orderBy('id').execute()
    expect(events.map((e) => [e.id, e.qr_code_id, JSON.parse(e.body ?? '')])).toEqual([
      ['msg_1', 'code-a', legacy.events[0]],
      ['msg_2', 'code-b', legacy.events[1]],
    ])
    const deliveries = await handle.db.selectFrom('webhook_deliveries').selectAll().execute()
    expect(deliveries.map((d) => `${d.webhook_id}:${d.event_id}`).sort()).toEqual([
      'w-all:msg_1',
      'w-all:msg_2',
      'w-b:msg_2',
    ])
  })
})
