import type { Db, Dialect } from '../../db/database.js'
import type { ScanVisitorDatesTable, ScanVisitorGapsTable } from '../../db/schema.js'
import { BatchStatement, QueryShape } from './batch-statement.js'

/** (day, previous day) of each visit day of one visitor, '' before the first. */
function gaps(days: readonly string[]): string[] {
  return days.map((day, i) => `${day}\0${i === 0 ? '' : days[i - 1]}`)
}

/**
 * What adding the visit days `added` to a visitor's `stored` ones (both sorted, disjoint) does
 * to the (day, previous day) counts: the gaps of all the days less those of the stored ones.
 * Only the neighbours of each added day change, so `stored` may be just the days around them
 * (the last stored day alone when every added day is later).
 */
export function gapChanges(
  stored: readonly string[],
  added: readonly string[],
): { day: string; previousDay: string; by: number }[] {
  const all = [...stored, ...added].sort()
  const change = new Map<string, number>()
  for (const key of gaps(all)) change.set(key, (change.get(key) ?? 0) + 1)
  for (const key of gaps(stored)) change.set(key, (change.get(key) ?? 0) - 1)
  const out: { day: string; previousDay: string; by: number }[] = []
  for (const [key, by] of change) {
    if (by === 0) continue
    const [day, previousDay] = key.split('\0') as [string, string]
    out.push({ day, previousDay, by })
  }
  return out
}

const findDayRows = new QueryShape<{ qrCodeId: string; visitorIds: string[] }>(
  (db, { qrCodeId, visitorIds }) =>
    db
      .selectFrom('scan_visitor_dates')
      .select(['visitor_id', 'day'])
      .where('qr_code_id', '=', qrCodeId)
      .where('visitor_id', 'in', visitorIds),
  ({ qrCodeId, visitorIds }) => [qrCodeId, ...visitorIds],
)

/** Every stored visit day of these visitors of one code (the index by visitor). */
async function visitDays(db: Db, dialect: Dialect, qrCodeId: string, visitorIds: string[]) {
  const rows = await findDayRows.executeInParts<{ visitor_id: string; day: string }, string>(
    db,
    dialect,
    visitorIds,
    (part) => ({ qrCodeId, visitorIds: part }),
  )
  const days = new Map<string, string[]>()
  for (const row of rows) {
    const list = days.get(row.visitor_id)
    if (list) list.push(row.day)
    else days.set(row.visitor_id, [row.day])
  }
  return days
}

const addFirstVisitRows = new BatchStatement<ScanVisitorGapsTable>(
  ['qr_code_id', 'day', 'previous_day', 'visitors'],
  (db, rows) =>
    db
      .insertInto('scan_visitor_gaps')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['qr_code_id', 'day', 'previous_day']).doUpdateSet((eb) => ({
          visitors: eb('scan_visitor_gaps.visitors', '+', eb.ref('excluded.visitors')),
        })),
      ),
)

const setPrefixRows = new BatchStatement<ScanVisitorGapsTable>(
  ['qr_code_id', 'day', 'previous_day', 'visitors'],
  (db, rows) =>
    db
      .insertInto('scan_visitor_gaps')
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(['qr_code_id', 'day', 'previous_day'])
          .doUpdateSet((eb) => ({ visitors: eb.ref('excluded.visitors') })),
      ),
)

const findPrefixRows = new QueryShape<{ qrCodeId: string; day: string; from: string }>(
  (db, { qrCodeId, day, from }) =>
    db
      .selectFrom('scan_visitor_gaps')
      .select(['previous_day', 'visitors'])
      .where('qr_code_id', '=', qrCodeId)
      .where('day', '=', day)
      .where((eb) =>
        eb(
          'previous_day',
          '>=',
          eb.fn.coalesce(
            eb
              .selectFrom('scan_visitor_gaps')
              .select((e) => e.fn.max('previous_day').as('p'))
              .where('qr_code_id', '=', qrCodeId)
              .where('day', '=', day)
              .where('previous_day', '>', '')
              .where('previous_day', '<', from),
            eb.val(from),
          ),
        ),
      )
      .orderBy('previous_day'),
  ({ qrCodeId, day, from }) => [qrCodeId, day, qrCodeId, day, '', from, from],
)

/**
 * Adds `by` visitors at each (day, previous day) of one code and day to the prefix sums: the
 * rows from the first changed previous day on (and the one before it, whose sum a new row
 * starts from) are read, and those that change written back.
 */
async function addToPrefixes(
  db: Db,
  dialect: Dialect,
  qrCodeId: string,
  day: string,
  changes: { previousDay: string; by: number }[],
): Promise<ScanVisitorGapsTable[]> {
  const sorted = changes.sort((a, b) => (a.previousDay < b.previousDay ? -1 : 1))
  const from = sorted[0]?.previousDay as string
  const stored = await findPrefixRows.execute<{ previous_day: string; visitors: number | string }>(
    db,
    dialect,
    1,
    { qrCodeId, day, from },
  )
  const keys = [...new Set([...stored.map((r) => r.previous_day), ...sorted.map((c) => c.previousDay)])]
    .filter((k) => k >= from)
    .sort()
  const had = new Set(stored.map((r) => r.previous_day))
  const rows: ScanVisitorGapsTable[] = []
  let base = 0
  let added = 0
  let s = 0
  let c = 0
  for (const key of keys) {
    while (s < stored.length && (stored[s]?.previous_day as string) <= key)
      base = Number(stored[s++]?.visitors)
    while (c < sorted.length && (sorted[c]?.previousDay as string) <= key) added += sorted[c++]?.by ?? 0
    if (!had.has(key) || added !== 0)
      rows.push({ qr_code_id: qrCodeId, day, previous_day: key, visitors: base + added })
  }
  return rows
}

type VisitKey = Pick<ScanVisitorDatesTable, 'qr_code_id' | 'visitor_id'>
const keyOf = (v: VisitKey) => `${v.qr_code_id}\0${v.visitor_id}`

/**
 * A change to the previous or next visit day of one row of scan_visitor_dates (null: keep).
 */
export interface VisitLink {
  qr_code_id: string
  visitor_id: string
  day: string
  previous_day: string | null
  next_day: string | null
}

/**
 * The links of visit days `added` to a visitor's complete `stored` ones (sorted, disjoint):
 * each added day's previous and next day, and the stored days beside an added one, whose next
 * (or previous) day is now that one.
 */
export function linkChanges(
  stored: readonly string[],
  added: readonly string[],
): { day: string; previousDay: string | null; nextDay: string | null }[] {
  const fresh = new Set(added)
  const all = [...stored, ...added].sort()
  const out = new Map<string, { day: string; previousDay: string | null; nextDay: string | null }>()
  const change = (day: string) => {
    const link = out.get(day) ?? { day, previousDay: null, nextDay: null }
    out.set(day, link)
    return link
  }
  all.forEach((day, i) => {
    if (!fresh.has(day)) return
    const before = all[i - 1]
    const after = all[i + 1]
    const link = change(day)
    link.previousDay = before ?? ''
    link.nextDay = after ?? ''
    if (before !== undefined && !fresh.has(before)) change(before).nextDay = day
    if (after !== undefined && !fresh.has(after)) change(after).previousDay = day
  })
  return [...out.values()]
}

/**
 * The previous and next visit day of each row of a batch whose visitor's last stored day is
 * known (`lastDays`) and earlier: those rows are new, and follow one another from that day.
 * Set on the rows before they are inserted, so that live scans need no second write of them.
 */
export function linkKnownVisits(rows: ScanVisitorDatesTable[], lastDays: ReadonlyMap<string, string>): void {
  const chains = new Map<string, ScanVisitorDatesTable[]>()
  for (const row of rows) {
    const last = lastDays.get(keyOf(row))
    if (last === undefined || row.day <= last) continue
    const chain = chains.get(keyOf(row))
    if (chain) chain.push(row)
    else chains.set(keyOf(row), [row])
  }
  for (const [key, chain] of chains) {
    chain.sort((a, b) => (a.day < b.day ? -1 : 1))
    chain.forEach((row, i) => {
      row.previous_day = i === 0 ? (lastDays.get(key) as string) : (chain[i - 1] as ScanVisitorDatesTable).day
      row.next_day = i === chain.length - 1 ? '' : (chain[i + 1] as ScanVisitorDatesTable).day
    })
  }
}

/**
 * Adds visit days just stored in scan_visitor_dates to scan_visitor_gaps, inside the batch's
 * transaction. `lastDays` holds, for visitors whose latest visit day this transaction read
 * (`updateVisitors`), their last day before the batch ('' for a new visitor): when every new day is
 * later, as for live scans, that is all the change needs. Any other (a day imported between
 * stored ones, a visitor the process had cached) reads the visitor's days. Writers of a code
 * are serialized by its qr_codes row (total_scans), so the days read are all there are.
 */
export async function addToVisitorGaps(
  db: Db,
  dialect: Dialect,
  added: Pick<ScanVisitorDatesTable, 'qr_code_id' | 'day' | 'visitor_id'>[],
  lastDays: ReadonlyMap<string, string>,
): Promise<VisitLink[]> {
  const links: VisitLink[] = []
  if (added.length === 0) return links
  const byVisitor = new Map<string, { qr_code_id: string; visitor_id: string; days: string[] }>()
  for (const row of added) {
    const key = keyOf(row)
    const entry = byVisitor.get(key)
    if (entry) entry.days.push(row.day)
    else byVisitor.set(key, { qr_code_id: row.qr_code_id, visitor_id: row.visitor_id, days: [row.day] })
  }
  const changes = new Map<string, ScanVisitorGapsTable>()
  const record = (qr_code_id: string, list: { day: string; previousDay: string; by: number }[]) => {
    for (const { day, previousDay, by } of list) {
      const key = `${qr_code_id}\0${day}\0${previousDay}`
      const row = changes.get(key)
      if (row) row.visitors += by
      else changes.set(key, { qr_code_id, day, previous_day: previousDay, visitors: by })
    }
  }
  const unknown = new Map<string, string[]>()
  for (const [key, visit] of byVisitor) {
    visit.days.sort()
    const last = lastDays.get(key)
    if (last !== undefined && (visit.days[0] as string) > last) {
      record(visit.qr_code_id, gapChanges(last === '' ? [] : [last], visit.days))
      // The new rows were linked as inserted (linkKnownVisits); the last stored day now has a next.
      if (last !== '')
        links.push({
          qr_code_id: visit.qr_code_id,
          visitor_id: visit.visitor_id,
          day: last,
          previous_day: null,
          next_day: visit.days[0] as string,
        })
      continue
    }
    const ids = unknown.get(visit.qr_code_id)
    if (ids) ids.push(visit.visitor_id)
    else unknown.set(visit.qr_code_id, [visit.visitor_id])
  }
  for (const [qrCodeId, ids] of [...unknown].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const days = await visitDays(db, dialect, qrCodeId, ids)
    for (const visitorId of ids) {
      const visit = byVisitor.get(`${qrCodeId}\0${visitorId}`)
      if (!visit) continue
      const fresh = new Set(visit.days)
      const stored = (days.get(visitorId) ?? []).filter((d) => !fresh.has(d)).sort()
      record(qrCodeId, gapChanges(stored, visit.days))
      for (const { day, previousDay, nextDay } of linkChanges(stored, visit.days))
        links.push({
          qr_code_id: qrCodeId,
          visitor_id: visitorId,
          day,
          previous_day: previousDay,
          next_day: nextDay,
        })
    }
  }
  const sorted = [...changes.values()]
    .filter((r) => r.visitors !== 0)
    .sort(
      (a, b) =>
        (a.qr_code_id < b.qr_code_id ? -1 : a.qr_code_id > b.qr_code_id ? 1 : 0) ||
        (a.day < b.day ? -1 : a.day > b.day ? 1 : 0) ||
        (a.previous_day < b.previous_day ? -1 : a.previous_day > b.previous_day ? 1 : 0),
    )
  await addFirstVisitRows.run(
    db,
    dialect,
    sorted.filter((r) => r.previous_day === ''),
  )
  const prefixes: ScanVisitorGapsTable[] = []
  const dated = sorted.filter((r) => r.previous_day !== '')
  for (let start = 0; start < dated.length; ) {
    const first = dated[start] as ScanVisitorGapsTable
    let end = start
    while (end < dated.length && dated[end]?.qr_code_id === first.qr_code_id && dated[end]?.day === first.day)
      end++
    const group = dated.slice(start, end).map((r) => ({ previousDay: r.previous_day, by: r.visitors }))
    prefixes.push(...(await addToPrefixes(db, dialect, first.qr_code_id, first.day, group)))
    start = end
  }
  await setPrefixRows.run(db, dialect, prefixes)
  return links
}
