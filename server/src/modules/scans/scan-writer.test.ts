import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MessageChannel } from 'node:worker_threads'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../config.js'
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../db/database.js'
import { systemClock } from '../../lib/clock.js'
import { randomIds } from '../../lib/ids.js'
import { createLogger } from '../../logger.js'
import { insertAccount, insertDynamicCodes } from '../../testing/fixtures.js'
import { fromColumns, type ScanColumns, toColumns } from './scan-columns.js'
import type { ScanEvent } from './scan-event.js'
import { createScanWriter, type ScanWriter } from './scan-writer.js'
import { findWriterPosition, IMPORT_WRITER_PREFIX, purgeWritersBefore } from './scans.repository.js'

const NOW = '2026-11-27T11:00:00.000Z'

/** Every field set, and different in each scan: a field lost on the way shows as a difference. */
const SCANS: ScanEvent[] = [
  {
    qrCodeId: 'code-a',
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
    qrCodeId: 'code-a',
    scannedAt: '2026-11-27T11:00:00.002Z',
    visitorId: 'visitor-2',
    device: 'desktop',
    browser: 'Firefox',
    os: 'Linux',
    country: 'FR',
    city: 'Lyon',
    referrer: 'direct',
  },
  {
    qrCodeId: 'code-a',
    scannedAt: '2026-11-27T11:00:00.003Z',
    visitorId: 'visitor-3',
    device: 'other',
    browser: null,
    os: null,
    country: null,
    city: null,
    referrer: null,
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

describe('the scan writer thread', () => {
  let dir: string
  let handle: DatabaseHandle
  let writer: ScanWriter | undefined

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'qrctl-scan-writer-'))
    handle = openDatabase(loadConfig({ DATABASE_URL: `file:${join(dir, 'scans.db')}` }).database)
    await migrateToLatest(handle.db)
    await insertAccount(handle.db, 'acc', NOW)
    await insertDynamicCodes(handle.db, 'acc', ['aaaaaaa'], NOW)
  })

  /** A SQLite file with the system clock and ids: batches cross into the writer's thread. */
  const startWriter = async () => {
    const config = loadConfig({ DATABASE_URL: `file:${join(dir, 'scans.db')}` })
    writer = createScanWriter({
      ...handle,
      config,
      clock: systemClock,
      ids: randomIds,
      logger: createLogger(config),
    })
    await writer.ready
    return writer
  }

  afterEach(async () => {
    await writer?.close()
    await handle.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('stores every field of every scan posted to it', async () => {
    writer = await startWriter()

    expect(await writer.write(SCANS)).toBe(SCANS.length)

    const rows = await handle.db.selectFrom('scans').selectAll().orderBy('id').execute()
    expect(
      rows.map((r) => ({
        qrCodeId: r.qr_code_id,
        scannedAt: r.scanned_at,
        visitorId: r.visitor_id,
        device: r.device,
        browser: r.browser,
        os: r.os,
        country: r.country,
        city: r.city,
        referrer: r.referrer,
      })),
    ).toStrictEqual(SCANS)
  })

  it('stores a batch tried again after a lost answer once, whatever joined it since', async () => {
    writer = await startWriter()
    const at = NOW
    // The first two scans are stored, but their answer is lost: the buffer puts them back in
    // front of the third and tries again, then once more.
    expect(await writer.write(SCANS.slice(0, 2), { writerId: 'buffer-1', firstSeq: 0, at })).toBe(2)
    expect(await writer.write(SCANS, { writerId: 'buffer-1', firstSeq: 0, at })).toBe(1)
    expect(await writer.write(SCANS, { writerId: 'buffer-1', firstSeq: 0, at })).toBe(0)
    // Another buffer (another process) numbers its own scans.
    expect(await writer.write(SCANS.slice(2), { writerId: 'buffer-2', firstSeq: 0, at })).toBe(1)

    const stored = await handle.db.selectFrom('scans').select('scanned_at').orderBy('id').execute()
    expect(stored.map((r) => r.scanned_at)).toEqual([...SCANS, SCANS[2]].map((s) => s?.scannedAt))
    const code = await handle.db.selectFrom('qr_codes').select('total_scans').executeTakeFirstOrThrow()
    expect(Number(code.total_scans)).toBe(4)
    // Housekeeping forgets buffers idle since the cut-off, and only those; an imported file's
    // position stays, so the file is never imported twice.
    await handle.db
      .insertInto('scan_writers')
      .values({ id: `${IMPORT_WRITER_PREFIX}acc:file`, through_seq: 9, updated_at: at })
      .execute()
    expect(await purgeWritersBefore(handle.db, at)).toBe(0)
    expect(await purgeWritersBefore(handle.db, '2026-12-05T00:00:00.000Z')).toBe(2)
    expect(await findWriterPosition(handle.db, `${IMPORT_WRITER_PREFIX}acc:file`)).toBe(9)
  })
})
