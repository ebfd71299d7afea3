import type {
  AccountAnalytics,
  AccountAnalyticsQuery,
  Analytics,
  AnalyticsQuery,
  NameCount,
  ScansQuery,
  ScansReport,
} from '@qrctl/contract'
import type { Ctx } from '../../context.js'
import type { Db } from '../../db/database.js'
import { notFound } from '../../errors.js'
import { getQrCodeRecordOrThrow } from '../qr-codes/qr-codes.service.js'
import { DIMENSIONS, type Dimension } from '../scans/scan-rollup.js'
import { QUARTER_MS } from '../scans/scan-windows.js'
import * as codesRepo from './analytics.repository.js'
import { resolveWindow, type Split, splitWindow, type Window } from './window.js'
import {
  type CodeSet,
  countBefore,
  countByQuarter,
  countByUtcDay,
  countByValue,
  countCodeVisitors,
  countVisitors,
  countVisitorsUntilNow,
  earliestCreationOf,
  lifetimeByValue,
  runningIds,
  topCodes,
} from './window.repository.js'

const TOP = 10
const MAX_LISTED_CODES = 1_000

/** Code-point order, as both databases sort names (JS `<` compares UTF-16 units). */
export function compareNames(a: string, b: string): number {
  const x = [...a]
  const y = [...b]
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i]?.codePointAt(0) ?? 0) - (y[i]?.codePointAt(0) ?? 0)
    if (d !== 0) return d
  }
  return x.length - y.length
}

const rank = (a: NameCount, b: NameCount) => b.count - a.count || compareNames(a.name, b.name)

interface Summary {
  totalEvents: number
  uniqueVisitors: number
  eventsByDay: { date: string; count: number }[]
  top: Record<Dimension, NameCount[]>
}

const emptyTop = () =>
  Object.fromEntries(DIMENSIONS.map((d) => [d, []])) as unknown as Record<Dimension, NameCount[]>

function zeros(window: Window): Summary {
  return {
    totalEvents: 0,
    uniqueVisitors: 0,
    eventsByDay: window.dates.map((date) => ({ date, count: 0 })),
    top: emptyTop(),
  }
}

const DAY_MS = 86_400_000

/** Every day of the window is a UTC day (UTC, Etc/UTC, Africa/Abidjan …): the daily rollups serve. */
const hasUtcDays = (window: Window) => window.starts.every((start) => start % DAY_MS === 0)

/** Scans per local day: running totals at the day starts, or quarter-hour counts poured into the days. */
async function eventsByDay(db: Db, codes: CodeSet, window: Window) {
  if (hasUtcDays(window)) {
    const last = new Date(window.countTo - 1).toISOString().slice(0, 10)
    const counts =
      window.countTo > window.countFrom ? await countByUtcDay(db, codes, window.from, last) : new Map()
    return window.dates.map((date) => ({ date, count: date <= last ? (counts.get(date) ?? 0) : 0 }))
  }
  const ids = runningIds(codes)
  if (ids) {
    // Each day's scans as the difference of the running totals at its start and its end.
    const first = Math.floor(window.countFrom / QUARTER_MS)
    const last = Math.floor(window.countTo / QUARTER_MS)
    const bounds = window.starts.map((start, i) =>
      i === 0 ? first : Math.min(last, Math.max(first, Math.ceil(start / QUARTER_MS))),
    )
    const before = await countBefore(db, ids, bounds)
    return window.dates.map((date, i) => ({ date, count: (before[i + 1] ?? 0) - (before[i] ?? 0) }))
  }
  const rows = await countByQuarter(db, codes, window.countFrom, window.countTo)
  const counts = window.dates.map(() => 0)
  let day = 0
  for (const row of rows) {
    const at = row.quarter * QUARTER_MS
    while (day < counts.length - 1 && at >= (window.starts[day + 1] as number)) day++
    counts[day] = (counts[day] ?? 0) + row.count
  }
  return window.dates.map((date, i) => ({ date, count: counts[i] ?? 0 }))
}

/**
 * Everything analytics answers about one window. For up to 100 codes the cost follows the
 * window's day boundaries and the codes' distinct values (running totals), never the number of
 * scans behind them (DESIGN §16), except visitors at a zone's two partial UTC days, read from
 * those days' visitor rows (one row per visitor of that day), and visitors of several codes.
 */
async function summarize(
  db: Db,
  codes: CodeSet,
  window: Window,
  options: { visitors: boolean; dimensions?: readonly Dimension[]; now?: number; wholeLife?: boolean },
): Promise<Summary> {
  const split = splitWindow(window.countFrom, window.countTo)
  const days = await eventsByDay(db, codes, window)
  const dimensions = options.dimensions ?? DIMENSIONS
  const one = 'ids' in codes && codes.ids.length === 1 ? codes.ids[0] : undefined
  // v1's fast paths, exact where they apply: a code's whole life is its lifetime totals, and
  // the visitors of a UTC window ending today are those last seen in it.
  const values =
    one && options.wholeLife
      ? await lifetimeByValue(db, one, dimensions)
      : await countByValue(db, codes, split, dimensions)
  const top = emptyTop()
  for (const row of values) top[row.dimension as Dimension]?.push({ name: row.value, count: row.count })
  for (const dimension of DIMENSIONS) top[dimension] = top[dimension].sort(rank).slice(0, TOP)
  const endsNow = options.now !== undefined && window.countTo > options.now
  let uniqueVisitors = 0
  if (options.visitors)
    uniqueVisitors =
      one && endsNow
        ? await countVisitorsUntilNow(db, one, window.countFrom)
        : await visitorsOf(db, codes, split)
  return {
    totalEvents: days.reduce((sum, day) => sum + day.count, 0),
    uniqueVisitors,
    eventsByDay: days,
    top,
  }
}

/** One code's from its visitor gaps; several codes' from their visitors per day. */
const visitorsOf = (db: Db, codes: CodeSet, split: Split) =>
  'ids' in codes && codes.ids.length === 1
    ? countCodeVisitors(db, codes.ids[0] as string, split)
    : countVisitors(db, codes, split)

/** Totals of the window just before, for `compare=previous`. */
async function previousTotals(db: Db, codes: CodeSet, previous: Window) {
  const split = splitWindow(previous.countFrom, previous.countTo)
  const days = await eventsByDay(db, codes, previous)
  return {
    from: previous.from,
    to: previous.to,
    totalEvents: days.reduce((sum, day) => sum + day.count, 0),
    uniqueVisitors: await visitorsOf(db, codes, split),
  }
}

function toAnalytics(window: Window, summary: Summary): Analytics {
  return {
    totalEvents: summary.totalEvents,
    uniqueVisitors: summary.uniqueVisitors,
    eventsByDay: summary.eventsByDay,
    topDevices: summary.top.device,
    topBrowsers: summary.top.browser,
    topOs: summary.top.os,
    topCountries: summary.top.country,
    topCities: summary.top.city,
    topReferrers: summary.top.referrer,
    from: window.from,
    to: window.to,
    timezone: window.timezone,
  }
}

/** One snapshot, so totals and lists agree: repeatable read on PostgreSQL, deferred on SQLite. */
function readOnly<T>(ctx: Ctx, run: (db: Db) => Promise<T>): Promise<T> {
  return ctx.db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(run)
}

/**
 * DESIGN §8 and §16: one code over a period or `from`/`to`, in `timezone` (UTC by default);
 * `all` starts on the creation day. A static code's analytics are zeros.
 */
export async function getAnalytics(
  ctx: Ctx,
  accountId: string,
  id: string,
  query: AnalyticsQuery,
): Promise<Analytics> {
  const code = await getQrCodeRecordOrThrow(ctx, accountId, id)
  const now = ctx.clock.now().getTime()
  const { window, previous } = resolveWindow(query, {
    now,
    firstInstant: Date.parse(code.createdAt),
    defaultPeriod: '30d',
  })
  const codes = { ids: [id] }
  if (code.type === 'static') {
    const answer = toAnalytics(window, zeros(window))
    return previous
      ? { ...answer, previous: { from: previous.from, to: previous.to, totalEvents: 0, uniqueVisitors: 0 } }
      : answer
  }
  return readOnly(ctx, async (db) => {
    const summary = await summarize(db, codes, window, {
      visitors: true,
      now,
      wholeLife: query.period === 'all' && !query.timezone,
    })
    const answer = toAnalytics(window, summary)
    return previous ? { ...answer, previous: await previousTotals(db, codes, previous) } : answer
  })
}

/** `GET /qr-codes/{id}/scans`: the specification's shape, today and the 29 days before by default. */
export async function getScans(
  ctx: Ctx,
  accountId: string,
  id: string,
  query: ScansQuery,
): Promise<ScansReport> {
  const code = await getQrCodeRecordOrThrow(ctx, accountId, id)
  const { window } = resolveWindow(query, {
    now: ctx.clock.now().getTime(),
    firstInstant: Date.parse(code.createdAt),
    defaultPeriod: '30d',
  })
  const summary =
    code.type === 'static'
      ? zeros(window)
      : await readOnly(ctx, (db) =>
          summarize(db, { ids: [id] }, window, {
            visitors: false,
            dimensions: ['country', 'device', 'referrer'],
          }),
        )
  return {
    from: window.from,
    to: window.to,
    timezone: window.timezone,
    totalEvents: summary.totalEvents,
    byDate: summary.eventsByDay,
    byCountry: summary.top.country,
    byDevice: summary.top.device,
    byReferrer: summary.top.referrer,
  }
}

/**
 * The codes an account-wide request covers: the named ones (each a live code of the account,
 * else a 404 naming it) or every live code, with the earliest creation among them. `tags`
 * narrows either to the codes carrying every one (none carrying them: zeros, not a 404).
 */
export async function resolveCodes(
  ctx: Ctx,
  accountId: string,
  ids: string[] | undefined,
  tags?: readonly string[],
): Promise<{ codes: CodeSet; firstInstant: number }> {
  const now = ctx.clock.now().getTime()
  if (tags && tags.length > 0) {
    if (ids) await resolveCodes(ctx, accountId, ids)
    const codes: CodeSet = { accountId, tags, ...(ids && { within: ids }) }
    const first = await earliestCreationOf(ctx.db, codes)
    return { codes, firstInstant: first ? Date.parse(first) : now }
  }
  if (!ids) {
    const first = await codesRepo.earliestCreation(ctx.db, accountId)
    const firstInstant = first ? Date.parse(first) : now
    // A list of ids lets both databases seek each code's rows by primary key; PostgreSQL
    // planned the subquery as a scan of the whole rollup. Past this many codes, the subquery.
    const live = await codesRepo.liveCodeIds(ctx.db, accountId, MAX_LISTED_CODES + 1)
    const listed = live.length > 0 && live.length <= MAX_LISTED_CODES
    return { codes: listed ? { ids: live } : { accountId }, firstInstant }
  }
  const live = await codesRepo.findLiveCodes(ctx.db, accountId, ids)
  const found = new Map(live.map((c) => [c.id, c.createdAt]))
  const missing = ids.find((id) => !found.has(id))
  if (missing) throw notFound('QR code', missing)
  const first = Math.min(...live.map((c) => Date.parse(c.createdAt)))
  return { codes: { ids }, firstInstant: first }
}

/** `GET /analytics` (DESIGN §16): the chosen codes together, visitors counted once, with topCodes. */
export async function getAccountAnalytics(
  ctx: Ctx,
  accountId: string,
  query: AccountAnalyticsQuery,
): Promise<AccountAnalytics> {
  const { qrCodeIds, tag, ...windowQuery } = query
  const { codes, firstInstant } = await resolveCodes(ctx, accountId, qrCodeIds, tag)
  const now = ctx.clock.now().getTime()
  const { window, previous } = resolveWindow(windowQuery, { now, firstInstant, defaultPeriod: '30d' })
  return readOnly(ctx, async (db) => {
    // One code (an account with one live code, or one named) ending now: its last-seen
    // histogram, as GET /qr-codes/{id}/analytics reads it.
    const answer = toAnalytics(window, await summarize(db, codes, window, { visitors: true, now }))
    const split = splitWindow(window.countFrom, window.countTo)
    const withCodes = { ...answer, topCodes: await topCodes(db, ctx.dialect, codes, split, TOP) }
    return previous ? { ...withCodes, previous: await previousTotals(db, codes, previous) } : withCodes
  })
}
