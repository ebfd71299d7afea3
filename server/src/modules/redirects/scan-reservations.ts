import type { Ctx } from '../../context.js'
import { reserveScan, reserveScans, type ScanTaken } from './redirects.repository.js'

interface Waiter {
  resolve(taken: ScanTaken | undefined): void
  reject(error: unknown): void
}

/**
 * Takes one scan of a code's limit per counted redirect (DESIGN §14), gathering redirects
 * that arrive together into one write.
 *
 * One conditional UPDATE per scan was exact but cost a write transaction per redirect: on
 * SQLite each went to the main connection behind the scan writer thread's batches (its lock
 * waited on the event loop), and each commit emptied the hot lookup's snapshot (issue #20:
 * 0.06–0.13× the bare server with `maxScans` set). Now a lone redirect still takes its scan
 * in one UPDATE; redirects read in the same turn of the event loop, or that queue behind a
 * write, take theirs together: one transaction for all of them, each code's row read and
 * advanced by as many as are left. Still exact across processes: SQLite writes one
 * transaction at a time, PostgreSQL locks the row (FOR UPDATE).
 */
export function createScanReservations(ctx: Pick<Ctx, 'db' | 'dialect'>) {
  let waiting = new Map<string, Waiter[]>()
  let writing = false

  const write = async (batch: Map<string, Waiter[]>) => {
    const first = [...batch][0]
    if (batch.size === 1 && first && first[1].length === 1) {
      const [qrCodeId, [waiter]] = first as [string, [Waiter]]
      waiter.resolve(await reserveScan(ctx.db, qrCodeId))
      return
    }
    const taken = await ctx.db.transaction().execute(async (trx) => {
      const answers = new Map<string, ScanTaken[]>()
      for (const [qrCodeId, waiters] of batch)
        answers.set(qrCodeId, await reserveScans(trx, ctx.dialect, qrCodeId, waiters.length))
      return answers
    })
    for (const [qrCodeId, waiters] of batch) {
      const scans = taken.get(qrCodeId) ?? []
      for (const [i, waiter] of waiters.entries()) waiter.resolve(scans[i])
    }
  }

  let scheduled = false
  const next = () => {
    scheduled = false
    if (writing || waiting.size === 0) return
    const batch = waiting
    waiting = new Map()
    writing = true
    write(batch)
      .catch((error: unknown) => {
        for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error)
      })
      .finally(() => {
        writing = false
        next()
      })
  }

  return {
    /** The scan taken (its number and the limit), or undefined when none is left. */
    reserve(qrCodeId: string): Promise<ScanTaken | undefined> {
      return new Promise((resolve, reject) => {
        const list = waiting.get(qrCodeId) ?? []
        list.push({ resolve, reject })
        waiting.set(qrCodeId, list)
        // After the requests already read in this turn of the event loop, so they go together.
        if (!scheduled && !writing) {
          scheduled = true
          setImmediate(next)
        }
      })
    },
  }
}

export type ScanReservations = ReturnType<typeof createScanReservations>
