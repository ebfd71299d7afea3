import type { Analytics } from '@qrctl/sdk'
import { type Command, Option } from 'commander'
import { dayChart, hbar } from '../chart.js'
import { PERIODS } from '../choices.js'
import { codeRef, resolveCodeId } from '../code-ref.js'
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

/** One record per line, its kind first: `total`, `unique`, `day`, then one per top-list entry. */
function analyticsTsv(data: Analytics): string {
  const lines = [tsvLine(['totalEvents', String(data.totalEvents)])]
  lines.push(tsvLine(['uniqueVisitors', String(data.uniqueVisitors)]))
  for (const day of data.eventsByDay) lines.push(tsvLine(['day', day.date, String(day.count)]))
  for (const [key, , kind] of TOP_LISTS)
    for (const entry of data[key]) lines.push(tsvLine([kind, entry.name, String(entry.count)]))
  return lines.join('\n')
}

function analyticsView(ui: Ui, data: Analytics, period: Period): string {
  const c = ui.out
  const out = [
    `${c.bold('Scans')} ${data.totalEvents}   ${c.bold('Unique visitors')} ${data.uniqueVisitors}   ${c.dim(`(${PERIOD_TEXT[period]}, UTC days)`)}`,
    '',
    c.bold('Scans per day'),
  ]
  if (data.totalEvents === 0) out.push(c.dim('  no scans in this period'))
  else out.push(...dayChart(data.eventsByDay, ui.columns - 2).map((line) => `  ${c.cyan(line)}`))
  for (const [key, title] of TOP_LISTS) {
    const entries = data[key]
    if (entries.length === 0) continue
    const nameWidth = Math.max(...entries.map((e) => e.name.length))
    const max = Math.max(...entries.map((e) => e.count))
    const barWidth = Math.max(10, Math.min(40, ui.columns - nameWidth - 12))
    out.push('', c.bold(title))
    for (const e of entries)
      out.push(`  ${e.name.padEnd(nameWidth)}  ${c.cyan(hbar(e.count, max, barWidth))} ${e.count}`)
  }
  return out.join('\n')
}

export function registerAnalyticsCommand(program: Command, session: Session): void {
  const command = program
    .command('analytics')
    .alias('stats')
    .description('Scan analytics of a QR code: totals, top lists and scans per day')
    .argument('<id>', 'the code id, or a dynamic code’s short code', codeRef())
    .addOption(new Option('-p, --period <period>', 'UTC days to cover').choices(PERIODS).default('30d'))
  withExamples(command, [
    'qrctl analytics 6f1c…',
    'qrctl analytics 6f1c… --period 7d',
    'qrctl analytics 6f1c… --period all --json | jq .topCountries',
    'qrctl analytics 6f1c… | grep ^day   # tab-separated when piped',
  ])
  command.action(async (id: string, flags: { period: Period }) => {
    const { ui } = session
    const data = await session.call(
      async (client) => client.qrCodes.analytics(await resolveCodeId(client, id), { period: flags.period }),
      'Fetching analytics…',
    )
    if (session.json) ui.print(JSON.stringify(data, null, 2))
    else if (ui.stdoutIsTty) ui.print(analyticsView(ui, data, flags.period))
    else ui.print(analyticsTsv(data))
  })
}
