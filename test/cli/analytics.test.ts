import { Analytics as AnalyticsSchema } from '@qrctl/contract'
import { type QrCode, Qrctl } from '@qrctl/sdk'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startServer, type TestServer } from '../support/server.js'
import { apiEnv, buildCli, type Home, plain, runCli, tempHome } from './support/cli.js'

let server: TestServer
let home: Home
let env: Record<string, string>
let sdk: Qrctl
let code: QrCode

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1'
const WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'

/** One scan of the short link, from a given browser and address, not following the redirect. */
async function scan(ua: string, ip: string): Promise<void> {
  const res = await fetch(code.shortUrl!, {
    headers: { 'user-agent': ua, 'x-forwarded-for': ip },
    redirect: 'manual',
  })
  expect(res.status).toBe(302)
  await res.text()
}

beforeAll(async () => {
  buildCli()
  server = await startServer({ env: { TRUST_PROXY: 'on' } })
  home = tempHome()
  env = apiEnv(home, server, server.apiKey)
  sdk = new Qrctl({ apiKey: server.apiKey, baseUrl: server.baseUrl })
  code = await sdk.qrCodes.create({
    name: 'Menu',
    contentType: 'url',
    content: 'https://example.com/menu',
    type: 'dynamic',
  })
  for (let i = 0; i < 4; i++) await scan(IPHONE, '8.8.8.8')
  await scan(WINDOWS, '81.2.69.142')
  await server.running.scans.flush()
}, 180_000)
afterAll(async () => {
  await sdk.close()
  await server.close()
  home.cleanup()
})

it('prints the SDK object with --json', async () => {
  const res = await runCli(['analytics', code.id, '--period', '7d', '--json'], { env })
  expect(res.code).toBe(0)
  const printed = AnalyticsSchema.parse(JSON.parse(res.stdout))
  expect(printed).toEqual(await sdk.qrCodes.analytics(code.id, { period: '7d' }))
  expect(printed.totalEvents).toBe(5)
})

it('prints one tab-separated record per line when piped: totals, days, then the top lists', async () => {
  const res = await runCli(['analytics', code.id, '--period', '7d'], { env })
  expect(res.code).toBe(0)
  expect(res.stderr).toBe('')
  const lines = res.stdout
    .trimEnd()
    .split('\n')
    .map((l) => l.split('\t'))
  expect(lines[0]).toEqual(['totalEvents', '5'])
  expect(lines[1]).toEqual(['uniqueVisitors', '2'])
  const days = lines.filter((l) => l[0] === 'day')
  expect(days).toHaveLength(7)
  expect(days.at(-1)).toEqual(['day', new Date().toISOString().slice(0, 10), '5'])
  expect(lines).toContainEqual(['device', 'mobile', '4'])
  expect(lines).toContainEqual(['device', 'desktop', '1'])
  expect(lines).toContainEqual(['country', 'US', '4'])
})

it('draws totals, a per-day bar chart in block characters and the top lists on a terminal', async () => {
  const res = await runCli(['analytics', code.id, '--period', '7d'], { env, tty: 'stdout' })
  expect(res.code).toBe(0)
  const text = plain(res.stdout)
  expect(text).toMatch(/Scans 5 {3}Unique visitors 2 {3}\(last 7 days, UTC days\)/)
  expect(text).toContain('Scans per day')
  // Every scan happened today: the last column reaches the top row, the others are empty.
  const chart = text.split('\n').filter((line) => line.includes('│'))
  expect(chart).toHaveLength(8)
  expect(chart[0]).toMatch(/^ {2}5 │ +██$/)
  expect(chart.at(-1)).toMatch(/^ {2}0 │ +██$/)
  expect(text).toMatch(/└─{21}/)
  expect(text).toMatch(/Devices\n {2}mobile {3}█+ 4\n {2}desktop {2}█+▏? ?1/)
  expect(text).toContain('Countries')
})

it('says so when there are no scans, and exits 0', async () => {
  const quiet = await sdk.qrCodes.create({
    name: 'Quiet',
    contentType: 'url',
    content: 'https://example.com/q',
    type: 'dynamic',
  })
  const res = await runCli(['analytics', quiet.id], { env, tty: 'stdout' })
  expect(res.code).toBe(0)
  expect(plain(res.stdout)).toContain('no scans in this period')
})
