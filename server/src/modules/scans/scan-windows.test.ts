import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type DatabaseHandle, migrateToLatest } from '../../db/database.js'
import type { ScanQuartersTable } from '../../db/schema.js'
import {
  testDialects as dialects,
  insertAccount,
  insertDynamicCodes,
  openTestDatabase,
} from '../../testing/fixtures.js'
import { addToRunningTotals } from './scan-windows.js'

const CODES = ['code-a', 'code-b']
const DIMENSIONS = ['city', 'scans']
const VALUES = ['', 'u', 'v', 'x', 'y', 'z']

/**
 * `addToRunningTotals` writes each row's total in one statement when nothing of its value is
 * stored later, and falls back to setting every total from the batch's quarter on otherwise;
 * batches of more than 64 rows split a value's rows between statements. Whatever the mix, the
 * totals must be each value's counts summed in quarter order.
 */
describe.each(dialects)('running totals on %s', (dialect) => {
  let handle: DatabaseHandle
  let drop: () => Promise<void>
  beforeAll(async () => {
    ;({ handle, drop } = await openTestDatabase(dialect, 'running'))
    await migrateToLatest(handle.db)
    const at = '2026-01-01T00:00:00.000Z'
    await insertAccount(handle.db, 'acc', at)
    await insertDynamicCodes(handle.db, 'acc', ['aaaaaaa', 'bbbbbbb'], at)
  })
  afterAll(async () => await drop())

  it('match the counts summed in quarter order after live batches, late ones and imports of history', async () => {
    let seed = 7
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed / 2 ** 31
    }
    const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)] as T
    // Every count added so far, by key.
    const counts = new Map<string, ScanQuartersTable>()
    let latest = 1_000
    for (let b = 0; b < 40; b++) {
      // Live (the latest quarter or the next), the next 40 quarters (a value's rows in two
      // statements or more), a few quarters back, or history over a wide range.
      const kind = pick(['live', 'live', 'ahead', 'late', 'history', 'wide'] as const)
      const ranges: Record<typeof kind, [number, number]> = {
        live: [latest, 2],
        ahead: [latest, 40],
        late: [latest - 3, 4],
        history: [900, 60],
        wide: [950, 120],
      }
      const [from, span] = ranges[kind]
      const batch = new Map<string, ScanQuartersTable>()
      for (let i = Math.floor(random() * 300); i >= 0; i--) {
        const row = {
          qr_code_id: pick(CODES),
          dimension: pick(DIMENSIONS),
          value: pick(VALUES),
          quarter: from + Math.floor(random() * span),
          count: 1 + Math.floor(random() * 3),
        }
        const key = `${row.qr_code_id}|${row.dimension}|${row.value}|${row.quarter}`
        const had = batch.get(key)
        if (had) had.count += row.count
        else batch.set(key, row)
      }
      latest = Math.max(latest, ...[...batch.values()].map((r) => r.quarter))
      const rows = [...batch.values()].sort(
        (a, b) =>
          a.qr_code_id.localeCompare(b.qr_code_id) ||
          a.dimension.localeCompare(b.dimension) ||
          a.quarter - b.quarter ||
          (a.value < b.value ? -1 : a.value > b.value ? 1 : 0),
      )
      await handle.db.transaction().execute((trx) => addToRunningTotals(trx, dialect, rows))
      for (const [key, row] of batch) {
        const had = counts.get(key)
        if (had) had.count += row.count
        else counts.set(key, { ...row })
      }

      const expected = new Map<string, [number, number]>()
      const sums = new Map<string, number>()
      for (const r of [...counts.values()].sort((a, b) => a.quarter - b.quarter)) {
        const value = `${r.qr_code_id}|${r.dimension}|${r.value}`
        const sum = (sums.get(value) ?? 0) + r.count
        sums.set(value, sum)
        expected.set(`${value}|${r.quarter}`, [r.count, sum])
      }
      const stored = await handle.db.selectFrom('scan_running').selectAll().execute()
      expect(
        new Map(
          stored.map((r) => [
            `${r.qr_code_id}|${r.dimension}|${r.value}|${r.quarter}`,
            [Number(r.count), Number(r.running)],
          ]),
        ),
        `after batch ${b} (${kind})`,
      ).toEqual(expected)
    }
  })
})
