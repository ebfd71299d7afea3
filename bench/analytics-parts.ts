/**
 * Where an analytics call's time goes, in-process: the parts of `code 7d compare Kathmandu` and
 * `account 30d Kathmandu` (bench:analytics-windows' two slowest rows) timed one by one on the
 * built server's repository functions, at 10,000 and 1,000,000 scans over a year (the same
 * seed), median of BENCH_CALLS warm calls. The database is kept (BENCH_PARTS_DB: a SQLite file
 * or a postgres:// URL of a database the bench may fill) and re-used when already seeded.
 *
 *   npm run build && BENCH_PARTS_DB=/tmp/parts.db npx tsx bench/analytics-parts.ts
 */
import { join } from 'node:path'
import { ROOT, round } from './redirect-support.js'
import { scanRows, seedScans } from './scan-seed.js'

// A build's server/dist (BENCH_SERVER_DIST, default this checkout's), so builds can be compared
// on one database: the older first, since a newer build's migrations are unknown to an older one.
const dist = process.env.BENCH_SERVER_DIST ?? join(ROOT, 'server/dist')
const { migrateToLatest, openDatabase } = await import(join(dist, 'index.js'))
const service = await import(join(dist, 'modules/analytics/analytics.service.js'))
const { previousWindow, resolveWindow, splitWindow } = await import(join(dist, 'modules/analytics/window.js'))
const repo = await import(join(dist, 'modules/analytics/window.repository.js'))

const QUARTER_MS = 900_000
const CALLS = Number(process.env.BENCH_CALLS ?? 15)
const target = process.env.BENCH_PARTS_DB ?? '/tmp/qrctl-parts.db'
const url = target.startsWith('postgres') ? target : `file:${target}`
const BIG = Number(process.env.BENCH_SCANS ?? 1_000_000)

type Part = () => Promise<unknown>

async function median(part: Part): Promise<number> {
  await part()
  await part()
  const times: number[] = []
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now()
    await part()
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return round(times[Math.floor(times.length / 2)] as number, 3)
}

async function main() {
  const dialect = url.startsWith('postgres') ? 'postgres' : 'sqlite'
  const handle = openDatabase(
    dialect === 'postgres' ? { dialect, connectionString: url } : { dialect, filename: target },
  )
  const { db } = handle
  await migrateToLatest(db)
  const sizes = [
    ['small', 10_000, 1],
    ['big', BIG, 2],
  ] as const
  let now = 0
  const existing = await db
    .selectFrom('qr_codes')
    .select(['id', 'name'])
    .where('id', 'in', ['small', 'big'])
    .execute()
  if (existing.length === 2) now = Number(String(existing[0]?.name).split(' ')[1])
  else {
    now = Date.now()
    const at = new Date(now - 400 * 86_400_000).toISOString()
    for (const [id] of sizes) {
      await db
        .insertInto('accounts')
        .values({ id: `acc-${id}`, name: id, plan: 'pro', subscription_status: 'active', created_at: at })
        .execute()
      await db
        .insertInto('qr_codes')
        .values({
          id,
          account_id: `acc-${id}`,
          name: `seed ${now}`,
          type: 'dynamic',
          content_type: 'url',
          content: 'https://example.com/',
          target_url: 'https://example.com/',
          short_code: `parts-${id}`,
          is_active: 1,
          created_at: at,
          updated_at: at,
        })
        .execute()
    }
    await handle.close()
    for (const [id, count, seed] of sizes) {
      const started = performance.now()
      await seedScans(url, scanRows(id, count, now, 365, seed), [id])
      process.stdout.write(`seeded ${count} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`)
    }
    return main()
  }
  const clock = { now: () => new Date(now) }
  const ctx = { db, dialect, clock }
  const results: Record<string, Record<string, number>> = {}
  // Every part once at both sizes first, so that neither size is measured on cold code.
  for (const pass of [0, 1])
    for (const [id] of pass === 0 ? [...sizes].reverse() : sizes) {
      const out: Record<string, number> = {}
      const codes = { ids: [id] }
      // code, period=7d, Kathmandu, compare=previous
      const { window, previous } = resolveWindow(
        { period: '7d', timezone: 'Asia/Kathmandu', compare: 'previous' },
        { now, firstInstant: now - 400 * 86_400_000, defaultPeriod: '30d' },
      )
      const prev = previous ?? previousWindow(window, { now })
      const bounds = (w: typeof window) => {
        const first = Math.floor(w.countFrom / QUARTER_MS)
        const last = Math.floor(w.countTo / QUARTER_MS)
        return w.starts.map((s: number, i: number) =>
          i === 0 ? first : Math.min(last, Math.max(first, Math.ceil(s / QUARTER_MS))),
        )
      }
      const split = splitWindow(window.countFrom, window.countTo)
      const prevSplit = splitWindow(prev.countFrom, prev.countTo)
      out['7d: whole call'] = await median(() =>
        service.getAnalytics(ctx, `acc-${id}`, id, {
          period: '7d',
          timezone: 'Asia/Kathmandu',
          compare: 'previous',
        }),
      )
      out['7d: days'] = await median(() => repo.countBefore(db, [id], bounds(window)))
      out['7d: values'] = await median(() => repo.countByValue(db, codes, split))
      out['7d: visitors until now'] = await median(() => repo.countVisitorsUntilNow(db, id, window.countFrom))
      out['7d: previous days'] = await median(() => repo.countBefore(db, [id], bounds(prev)))
      out['7d: previous visitors'] = await median(() => repo.countCodeVisitors(db, id, prevSplit))
      out['7d: previous visitors, whole days'] = await median(() =>
        repo.countCodeVisitors(db, id, { days: prevSplit.days, edges: [] }),
      )
      // account, period=30d, Kathmandu
      const account = resolveWindow(
        { period: '30d', timezone: 'Asia/Kathmandu' },
        { now, firstInstant: now - 400 * 86_400_000, defaultPeriod: '30d' },
      ).window
      const accountSplit = splitWindow(account.countFrom, account.countTo)
      out['account: whole call'] = await median(() =>
        service.getAccountAnalytics(ctx, `acc-${id}`, { period: '30d', timezone: 'Asia/Kathmandu' }),
      )
      out['account: resolve codes'] = await median(() => service.resolveCodes(ctx, `acc-${id}`, undefined))
      out['account: days'] = await median(() => repo.countBefore(db, [id], bounds(account)))
      out['account: values'] = await median(() => repo.countByValue(db, codes, accountSplit))
      out['account: visitors (gaps + edges)'] = await median(() =>
        repo.countCodeVisitors(db, id, accountSplit),
      )
      out['account: visitors until now'] = await median(() =>
        repo.countVisitorsUntilNow(db, id, account.countFrom),
      )
      out['account: top codes'] = await median(() => repo.topCodes(db, dialect, codes, accountSplit, 10))
      if (pass === 1) results[id] = out
    }
  const small = results.small as Record<string, number>
  const big = results.big as Record<string, number>
  for (const name of Object.keys(small))
    process.stdout.write(
      `${dialect} ${name}: ${small[name]} ms → ${big[name]} ms (${round((big[name] as number) / (small[name] as number))}x)\n`,
    )
  await handle.close()
}

await main()
