import type { Analytics, NameCount, Period } from '@qrctl/contract'
import type { Ctx } from '../../context.js'
import { addDays } from '../../lib/clock.js'
import { getQrCodeRecordOrThrow } from '../qr-codes/qr-codes.service.js'
import { DIMENSIONS, type Dimension } from '../scans/scan-rollup.js'
import * as repo from './analytics.repository.js'

const WINDOW_DAYS: Record<Exclude<Period, 'all'>, number> = { '7d': 7, '30d': 30, '90d': 90 }
const TOP = 10

const utcDay = (date: Date | string) => new Date(date).toISOString().slice(0, 10)

/** Every UTC day from `first` to `last`, both included. */
export function daysBetween(first: string, last: string): string[] {
  const days: string[] = []
  for (let day = first; day <= last; day = utcDay(addDays(`${day}T00:00:00Z`, 1))) days.push(day)
  return days
}

/** The window's first UTC day: `all` starts on the creation day (never after today). */
function firstDay(period: Period, createdDay: string, today: string): string {
  if (period === 'all') return createdDay < today ? createdDay : today
  return utcDay(addDays(`${today}T00:00:00Z`, 1 - WINDOW_DAYS[period]))
}

function emptyAnalytics(days: string[]): Analytics {
  return {
    totalEvents: 0,
    uniqueVisitors: 0,
    eventsByDay: days.map((date) => ({ date, count: 0 })),
    topDevices: [],
    topBrowsers: [],
    topOs: [],
    topCountries: [],
    topCities: [],
    topReferrers: [],
  }
}

/**
 * DESIGN §8. `7d` is today and the 6 days before (UTC, today from ctx.clock); `all` starts
 * on the code's creation day. Reads only rollups, so the cost follows days and distinct
 * values, never the number of scans. One snapshot, so the totals and lists agree.
 */
export async function getAnalytics(
  ctx: Ctx,
  accountId: string,
  id: string,
  period: Period,
): Promise<Analytics> {
  const code = await getQrCodeRecordOrThrow(ctx, accountId, id)
  const today = utcDay(ctx.clock.now())
  const first = firstDay(period, utcDay(code.createdAt), today)
  const days = daysBetween(first, today)
  // Static codes encode their content directly; no scan ever reaches the server.
  if (code.type === 'static') return emptyAnalytics(days)
  const range: repo.DayRange = { from: period === 'all' ? null : first, to: today }
  // Repeatable read on PostgreSQL (SQLite transactions are snapshots anyway); read only, so on
  // SQLite it starts deferred and reads past another process's write lock.
  return ctx.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (trx) => {
      const counts = new Map((await repo.countScansByDay(trx, id, range)).map((r) => [r.day, r.count]))
      const eventsByDay = days.map((date) => ({ date, count: counts.get(date) ?? 0 }))
      const totalEvents =
        range.from === null
          ? await repo.countAllScans(trx, id)
          : eventsByDay.reduce((sum, day) => sum + day.count, 0)
      const uniqueVisitors = await repo.countVisitors(trx, id, range)
      const top = {} as Record<Dimension, NameCount[]>
      for (const dimension of DIMENSIONS)
        top[dimension] = await repo.topValues(trx, ctx.dialect, id, dimension, range, TOP)
      return {
        totalEvents,
        uniqueVisitors,
        eventsByDay,
        topDevices: top.device,
        topBrowsers: top.browser,
        topOs: top.os,
        topCountries: top.country,
        topCities: top.city,
        topReferrers: top.referrer,
      }
    })
}
