import type { AccountAnalytics, Analytics } from '@qrctl/sdk'
import { type Command, Option } from 'commander'
import { dayChart, hbar } from '../chart.js'
import { PERIODS } from '../choices.js'
import { codeRef, resolveCodeId } from '../code-ref.js'
import { usageError } from '../errors.js'
import { withExamples } from '../help.js'
import { tsvLine } from '../output.js'
import type { Session } from '../session.js'
import type { Ui } from '../ui.js'

type Period = (typeof PERIODS)[number]

const TOP_LISTS = [
  ['topCountries', 'Countries', 'country'],
  ['topCities', 'Cities', 'city'],
  ['topDevices', 'Devices', 'device'],
  ['topBrowsers', 'Browsers', 'browser'],
  ['topOs', 'Operating systems', 'os'],
  ['topReferrers', 'Referrers', 'referrer'],
] as const satisfies readonly (readonly [keyof Analytics, string, string])[]

const PERIOD_TEXT: Record<Period, string> = {
  '7d': 'last 7 days',
  '30d': 'last 30 days',
  '90d': 'last 90 days',
  all: 'since the code was created',
}

/** What `qrctl analytics` prints: one code's analytics, or the account's (with `topCodes`). */
type Stats = Analytics & Partial<Pick<AccountAnalytics, 'topCodes'>>

interface Flags {
  period?: Period
  from?: string
  to?: string
  tz?: string
  compare?: boolean
  all?: boolean
  codes?: string
  tag?: string[]
}

/** One record per line, its kind first: `total`, `unique`, `day`, then one per top-list entry. */
function analyticsTsv(data: Stats): string {
  const lines = [tsvLine(['totalEvents', String(data.totalEvents)])]
  lines.push(tsvLine(['uniqueVisitors', String(data.uniqueVisitors)]))
  if (data.previous) {
    lines.push(tsvLine(['previousTotalEvents', String(data.previous.totalEvents)]))
    lines.push(tsvLine(['previousUniqueVisitors', String(data.previous.uniqueVisitors)]))
  }
  for (const day of data.eventsByDay) lines.push(tsvLine(['day', day.date, String(day.count)]))
  for (const code of data.topCodes ?? [])
    lines.push(tsvLine(['code', code.id, code.name, String(code.count)]))
  for (const [key, , kind] of TOP_LISTS)
    for (const entry of data[key]) lines.push(tsvLine([kind, entry.name, String(entry.count)]))
  return lines.join('\n')
}

/** `(last 7 days, UTC days)`, `(2026-03-01 to 2026-03-31, days in Asia/Kathmandu)`. */
function windowText(data: Stats, flags: Flags): string {
  const span = flags.from ? `${data.from} to ${data.to}` : PERIOD_TEXT[flags.period ?? '30d']
  const zone = !data.timezone || data.timezone === 'UTC' ? 'UTC days' : `days in ${data.timezone}`
  return `(${span}, ${zone})`
}

/** `+25%`, `−40%`, or nothing when the previous window had no scans. */
function change(now: number, before: number): string {
  if (before === 0) return ''
  const pct = Math.round(((now - before) / before) * 100)
  return ` (${pct >= 0 ? '+' : '−'}${Math.abs(pct)}%)`
}

function listLines(ui: Ui, title: string, entries: readonly { name: string; count: number }[]): string[] {
  const c = ui.out
  if (entries.length === 0) return []
  const nameWidth = Math.max(...entries.map((e) => e.name.length))
  const max = Math.max(...entries.map((e) => e.count))
  const barWidth = Math.max(10, Math.min(40, ui.columns - nameWidth - 12))
  return [
    '',
    c.bold(title),
    ...entries.map(
      (e) => `  ${e.name.padEnd(nameWidth)}  ${c.cyan(hbar(e.count, max, barWidth))} ${e.count}`,
    ),
  ]
}

function analyticsView(ui: Ui, data: Stats, flags: Flags): string {
  const c = ui.out
  const out = [
    `${c.bold('Scans')} ${data.totalEvents}   ${c.bold('Unique visitors')} ${data.uniqueVisitors}   ${c.dim(windowText(data, flags))}`,
  ]
  if (data.previous) {
    const p = data.previous
    out.push(
      c.dim(
        `Before (${p.from} to ${p.to}): scans ${p.totalEvents}${change(data.totalEvents, p.totalEvents)}, unique visitors ${p.uniqueVisitors}${change(data.uniqueVisitors, p.uniqueVisitors)}`,
      ),
    )
  }
  out.push('', c.bold('Scans per day'))
  if (data.totalEvents === 0) out.push(c.dim('  no scans in this period'))
  else out.push(...dayChart(data.eventsByDay, ui.columns - 2).map((line) => `  ${c.cyan(line)}`))
  if (data.topCodes) out.push(...listLines(ui, 'Codes', data.topCodes))
  for (const [key, title] of TOP_LISTS) out.push(...listLines(ui, title, data[key]))
  return out.join('\n')
}

/** The window flags as the API's query: `--tz` is `timezone`, `--compare` is `compare=previous`. */
function windowQuery(flags: Flags) {
  if (flags.period && (flags.from || flags.to))
    throw usageError('Give either --period or --from/--to, not both')
  if (Boolean(flags.from) !== Boolean(flags.to)) throw usageError('--from and --to go together')
  return {
    ...(flags.period ? { period: flags.period } : {}),
    ...(flags.from && flags.to ? { from: flags.from, to: flags.to } : {}),
    ...(flags.tz ? { timezone: flags.tz } : {}),
    ...(flags.compare ? { compare: 'previous' as const } : {}),
  }
}

export function registerAnalyticsCommand(program: Command, session: Session): void {
  const command = program
    .command('analytics')
    .alias('stats')
    .description('Scan analytics of a QR code, or of all your codes: totals, top lists and scans per day')
    .argument('[id]', 'the code id, or a dynamic code’s short code (leave out with --all)', codeRef())
    .addOption(
      new Option('-p, --period <period>', 'days to cover, ending today (default 30d)').choices(PERIODS),
    )
    .option('--from <date>', 'first day, YYYY-MM-DD (with --to; at most 366 days)')
    .option('--to <date>', 'last day, YYYY-MM-DD')
    .option('--tz <zone>', 'IANA time zone whose days to count, e.g. Europe/Berlin (default UTC)')
    .option('--compare', 'also show the window of as many days just before')
    .option('--all', 'every code of the account together, with the top codes')
    .option('--codes <ids>', 'with --all: only these codes (comma-separated ids)')
    .option(
      '--tag <tag>',
      'with --all: only codes with this tag; repeat for codes with every one',
      (value: string, previous: string[] = []) => [...previous, value],
    )
  withExamples(command, [
    'qrctl analytics 6f1c…',
    'qrctl analytics 6f1c… --period 7d --tz America/New_York',
    'qrctl analytics 6f1c… --from 2026-03-01 --to 2026-03-31 --tz Asia/Kathmandu --compare',
    'qrctl analytics --all --period 90d',
    'qrctl analytics --all --tag spring --from 2026-03-01 --to 2026-05-31 --tz Europe/Berlin',
    'qrctl analytics 6f1c… --period all --json | jq .topCountries',
    'qrctl analytics 6f1c… | grep ^day   # tab-separated when piped',
  ])
  command.action(async (id: string | undefined, flags: Flags) => {
    const { ui } = session
    if (flags.all && id) throw usageError('Give a code id or --all, not both')
    if (!flags.all && !id) throw usageError('Which code?', 'Give a code id, or --all for every code.')
    if (flags.codes && !flags.all) throw usageError('--codes goes with --all')
    if (flags.tag && !flags.all) throw usageError('--tag goes with --all')
    const query = windowQuery(flags)
    const data: Stats = await session.call(
      async (client) =>
        flags.all
          ? client.analytics.get({
              ...query,
              ...(flags.codes ? { qrCodeIds: flags.codes } : {}),
              ...(flags.tag ? { tag: flags.tag } : {}),
            })
          : client.qrCodes.analytics(await resolveCodeId(client, id as string), query),
      'Fetching analytics…',
    )
    if (session.json) ui.print(JSON.stringify(data, null, 2))
    else if (ui.stdoutIsTty) ui.print(analyticsView(ui, data, flags))
    else ui.print(analyticsTsv(data))
  })
}
