// Print a 30-day scan report for one code (the id as argument, else your newest dynamic code).
// Run: QRCTL_API_KEY=qrk_… npx tsx examples/analytics-report.ts [code-id]
import type { Analytics } from '@qrctl/sdk'
import { clientFromEnv } from './client.js'

const qrctl = clientFromEnv()

async function pickCodeId(): Promise<string | undefined> {
  if (process.argv[2]) return process.argv[2]
  const { data } = await qrctl.qrCodes.list({ type: 'dynamic', limit: 1 })
  return data[0]?.id
}

function printTop(title: string, entries: Analytics['topCountries']): void {
  if (entries.length === 0) return
  console.log(`\n${title}`)
  for (const { name, count } of entries) console.log(`  ${name.padEnd(24)} ${String(count).padStart(6)}`)
}

const id = await pickCodeId()
if (!id) {
  console.error('No dynamic code yet: create one first (see dynamic-retarget.ts).')
  process.exit(1)
}
const code = await qrctl.qrCodes.get(id)
const report = await qrctl.qrCodes.analytics(id, { period: '30d' })

console.log(`Scans of "${code.name}" (${code.shortUrl ?? 'static'}), last 30 days`)
console.log(`Total scans:     ${report.totalEvents}`)
console.log(`Unique visitors: ${report.uniqueVisitors}`)
const peak = Math.max(1, ...report.eventsByDay.map((day) => day.count))
console.log('\nPer day (UTC)')
for (const { date, count } of report.eventsByDay) {
  console.log(`  ${date} ${String(count).padStart(5)} ${'#'.repeat(Math.round((count / peak) * 40))}`)
}
printTop('Devices', report.topDevices)
printTop('Browsers', report.topBrowsers)
printTop('Operating systems', report.topOs)
printTop('Countries', report.topCountries)
printTop('Cities', report.topCities)
printTop('Referrers', report.topReferrers)

await qrctl.close()
