import type { Insertable } from 'kysely'
import type { Db, Dialect } from '../../db/database.js'
import type { ScanDailyTable, ScansTable, ScanTotalsTable, ScanVisitorDaysTable } from '../../db/schema.js'
import { BatchStatement, QueryShape } from './batch-statement.js'
import type { VisitorLastDay } from './scan-rollup.js'

const VISITOR_SECRET_KEY = 'visitor_secret'

/** Rows per statement: well under SQLite's 32,766 and PostgreSQL's 65,535 bound parameters. */
const CHUNK = 500

function chunks<T>(items: T[], size = CHUNK): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

export async function findVisitorSecret(db: Db): Promise<string | undefined> {
  const row = await db
    .selectFrom('settings')
    .select('value')
    .where('key', '=', VISITOR_SECRET_KEY)
    .executeTakeFirst()
  return row?.value
}

/** Stores the secret unless another process stored one first; read it back afterwards. */
export async function insertVisitorSecretIfAbsent(db: Db, secret: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key: VISITOR_SECRET_KEY, value: secret })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute()
}

/**
 * The sequence number of the last scan the buffer `writerId` stored (-1 before its first
 * batch), its row locked until the transaction ends: a batch retried while its first try is
 * still committing waits here, then reads that try's number (PostgreSQL's upsert sees the
 * latest committed row; SQLite writes one transaction at a time).
 */
export async function lockWriterPosition(db: Db, writerId: string, at: string): Promise<number> {
  const row = await db
    .insertInto('scan_writers')
    .values({ id: writerId, through_seq: -1, updated_at: at })
    .onConflict((oc) => oc.column('id').doUpdateSet({ updated_at: at }))
    .returning('through_seq')
    .executeTakeFirstOrThrow()
  return Number(row.through_seq)
}

export async function setWriterPosition(db: Db, writerId: string, throughSeq: number): Promise<void> {
  await db.updateTable('scan_writers').set({ through_seq: throughSeq }).where('id', '=', writerId).execute()
}

/** The sequence number of the last scan `writerId` stored, -1 when it has stored none. */
export async function findWriterPosition(db: Db, writerId: string): Promise<number> {
  const row = await db
    .selectFrom('scan_writers')
    .select('through_seq')
    .where('id', '=', writerId)
    .executeTakeFirst()
  return row ? Number(row.through_seq) : -1
}

/** Prefix of the positions of imported files (`importScans`): kept, so a file is never imported twice. */
export const IMPORT_WRITER_PREFIX = 'import:'

/** Forgets buffers that have written nothing since `before` (their processes are gone). */
export async function purgeWritersBefore(db: Db, before: string): Promise<number> {
  const result = await db
    .deleteFrom('scan_writers')
    .where('updated_at', '<', before)
    .where('id', 'not like', `${IMPORT_WRITER_PREFIX}%`)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** Which of these codes still exist (a purge may remove one between its scan and the write). */
export async function findExistingCodeIds(db: Db, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>()
  for (const part of chunks(ids)) {
    const rows = await db.selectFrom('qr_codes').select('id').where('id', 'in', part).execute()
    for (const row of rows) found.add(row.id)
  }
  return found
}

export type ScanRow = Omit<Insertable<ScansTable>, 'id'>

const insertScanRows = new BatchStatement<ScanRow>(
  ['qr_code_id', 'scanned_at', 'visitor_id', 'device', 'browser', 'os', 'country', 'city', 'referrer'],
  (db, rows) => db.insertInto('scans').values(rows),
)

const insertScanRowsReturningIds = new BatchStatement<ScanRow>(
  ['qr_code_id', 'scanned_at', 'visitor_id', 'device', 'browser', 'os', 'country', 'city', 'referrer'],
  (db, rows) => db.insertInto('scans').values(rows).returning(['id', 'qr_code_id']),
)

export async function insertScans(db: Db, dialect: Dialect, rows: ScanRow[]): Promise<void> {
  await insertScanRows.run(db, dialect, rows)
}

async function lastScanId(db: Db): Promise<number> {
  const row = await db
    .selectFrom('scans')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst()
  return Number(row?.id ?? 0)
}

/** A stored scan's row id and code. */
export interface StoredScanId {
  id: number
  qrCodeId: string
}

/**
 * `insertScans`, answering each row's id and code (the webhook outbox refers to scans by id,
 * DESIGN §15). On SQLite the transaction holds the write lock, so the rows take the ids after
 * the largest one, in order: two lookups of the last id (checked) rather than a RETURNING row
 * per scan. PostgreSQL answers them with RETURNING (other processes may take ids in between);
 * each id comes with its code, so nothing depends on the order RETURNING answers in.
 */
export async function insertScansReturningIds(
  db: Db,
  dialect: Dialect,
  rows: ScanRow[],
): Promise<StoredScanId[]> {
  if (dialect === 'postgres')
    return (
      await insertScanRowsReturningIds.run<{ id: number | string; qr_code_id: string }>(db, dialect, rows)
    ).map((r) => ({ id: Number(r.id), qrCodeId: r.qr_code_id }))
  const before = await lastScanId(db)
  await insertScanRows.run(db, dialect, rows)
  const after = await lastScanId(db)
  if (after - before !== rows.length)
    throw new Error(`scan ids: ${rows.length} rows took ${after - before} ids after ${before}`)
  return rows.map((row, i) => ({ id: before + 1 + i, qrCodeId: row.qr_code_id }))
}

export async function addTotalScans(db: Db, qrCodeId: string, count: number): Promise<void> {
  await db
    .updateTable('qr_codes')
    .set((eb) => ({ total_scans: eb('total_scans', '+', count) }))
    .where('id', '=', qrCodeId)
    .execute()
}

const addDailyRows = new BatchStatement<ScanDailyTable>(
  ['qr_code_id', 'dimension', 'day', 'value', 'count'],
  (db, rows) =>
    db
      .insertInto('scan_daily')
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(['qr_code_id', 'dimension', 'day', 'value'])
          .doUpdateSet((eb) => ({ count: eb('scan_daily.count', '+', eb.ref('excluded.count')) })),
      ),
)

/** Adds to the daily counts (rows that do not exist yet start at the given count). */
export async function addDailyCounts(db: Db, dialect: Dialect, rows: ScanDailyTable[]): Promise<void> {
  await addDailyRows.run(db, dialect, rows)
}

const addTotalRows = new BatchStatement<ScanTotalsTable>(
  ['qr_code_id', 'dimension', 'value', 'count'],
  (db, rows) =>
    db
      .insertInto('scan_totals')
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(['qr_code_id', 'dimension', 'value'])
          .doUpdateSet((eb) => ({ count: eb('scan_totals.count', '+', eb.ref('excluded.count')) })),
      ),
)

export async function addTotalCounts(db: Db, dialect: Dialect, rows: ScanTotalsTable[]): Promise<void> {
  await addTotalRows.run(db, dialect, rows)
}

const findLastDayRows = new QueryShape<{ qrCodeId: string; visitorIds: string[] }>(
  (db, { qrCodeId, visitorIds }) =>
    db
      .selectFrom('scan_visitor_dates')
      .select((eb) => ['visitor_id', eb.fn.max('day').as('last_day')])
      .where('qr_code_id', '=', qrCodeId)
      .where('visitor_id', 'in', visitorIds)
      .groupBy('visitor_id'),
  ({ qrCodeId, visitorIds }) => [qrCodeId, ...visitorIds],
)

/**
 * The UTC day of the latest stored scan of each of these visitors of one code (a visitor with
 * none is left out): their latest visit day, one seek each into scan_visitor_dates' index by
 * visitor. Call it after the code's qr_codes row is locked (`addTotalScans`): writers of a
 * code then take turns, so the days read are all there are (PostgreSQL reads each statement
 * afresh, after the lock's wait; SQLite writes one transaction at a time).
 */
export async function findLastVisitDays(
  db: Db,
  dialect: Dialect,
  qrCodeId: string,
  visitorIds: string[],
): Promise<VisitorLastDay[]> {
  const rows = await findLastDayRows.executeInParts<{ visitor_id: string; last_day: string }, string>(
    db,
    dialect,
    visitorIds,
    (part) => ({ qrCodeId, visitorIds: part }),
  )
  return rows.map((row) => ({ qr_code_id: qrCodeId, visitor_id: row.visitor_id, last_day: row.last_day }))
}

const addVisitorDayRows = new BatchStatement<ScanVisitorDaysTable>(
  ['qr_code_id', 'day', 'count'],
  (db, rows) =>
    db
      .insertInto('scan_visitor_days')
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(['qr_code_id', 'day'])
          .doUpdateSet((eb) => ({ count: eb('scan_visitor_days.count', '+', eb.ref('excluded.count')) })),
      ),
)

/** Moves visitors between days of the last-seen histogram (negative counts take them out). */
export async function addVisitorDays(db: Db, dialect: Dialect, rows: ScanVisitorDaysTable[]): Promise<void> {
  await addVisitorDayRows.run(db, dialect, rows)
}
