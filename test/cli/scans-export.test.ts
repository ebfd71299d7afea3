import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { AccountAnalytics as AccountAnalyticsSchema } from '@qrctl/contract'
import { type QrCode, Qrctl } from '@qrctl/sdk'
import { ManualClock } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scansAt } from '../analytics/import-helpers.js'
import { startServer, type TestServer } from '../support/server.js'
import { apiEnv, buildCli, type Home, plain, runCli, tempHome } from './support/cli.js'

let server: TestServer
let home: Home
let env: Record<string, string>
let sdk: Qrctl
let menu: QrCode
let door: QrCode

beforeAll(async () => {
  buildCli()
  server = await startServer({ clock: new ManualClock(new Date('2026-11-20T12:00:00.000Z')) })
  home = tempHome()
  env = apiEnv(home, server, server.apiKey)
  sdk = new Qrctl({ apiKey: server.apiKey, baseUrl: server.baseUrl })
  const dynamic = (name: string) =>
    sdk.qrCodes.create({ name, contentType: 'url', content: 'https://example.com', type: 'dynamic' })
  menu = await dynamic('Menu')
  door = await dynamic('Door')
  await scansAt(server, server.accountId, menu.id, [
    { at: '2026-11-09T10:00:00.000Z', visitor: 'a' },
    { at: '2026-11-10T18:20:00.000Z', visitor: 'a' },
    { at: '2026-11-11T09:00:00.000Z', visitor: 'b' },
  ])
  await scansAt(server, server.accountId, door.id, [{ at: '2026-11-11T10:00:00.000Z', visitor: 'a' }])
}, 180_000)
afterAll(async () => {
  await sdk.close()
  await server.close()
  home.cleanup()
})

describe('qrctl analytics with windows and zones', () => {
  it('passes --from/--to/--tz/--compare to the API and prints the SDK object with --json', async () => {
    const args = ['--from', '2026-11-10', '--to', '2026-11-11', '--tz', 'Asia/Kathmandu', '--compare']
    const res = await runCli(['analytics', menu.id, ...args, '--json'], { env })
    expect(res.code, res.stderr).toBe(0)
    const printed = JSON.parse(res.stdout)
    expect(printed).toEqual(
      await sdk.qrCodes.analytics(menu.id, {
        from: '2026-11-10',
        to: '2026-11-11',
        timezone: 'Asia/Kathmandu',
        compare: 'previous',
      }),
    )
    expect(printed).toMatchObject({
      totalEvents: 2,
      timezone: 'Asia/Kathmandu',
      previous: { totalEvents: 1 },
    })
  })

  it('adds up every code with --all: tab-separated when piped, a chart and the top codes on a terminal', async () => {
    const piped = await runCli(['analytics', '--all', '--period', '30d'], { env })
    expect(piped.code, piped.stderr).toBe(0)
    const lines = piped.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'))
    expect(lines[0]).toEqual(['totalEvents', '4'])
    expect(lines[1]).toEqual(['uniqueVisitors', '2'])
    expect(lines).toContainEqual(['code', menu.id, 'Menu', '3'])
    expect(lines).toContainEqual(['code', door.id, 'Door', '1'])
    const json = await runCli(['analytics', '--all', '--codes', door.id, '--json'], { env })
    expect(AccountAnalyticsSchema.parse(JSON.parse(json.stdout)).totalEvents).toBe(1)
    await sdk.qrCodes.update(door.id, { tags: ['door', 'spring'] })
    const tagged = await runCli(['analytics', '--all', '--tag', 'spring', '--tag', 'door', '--json'], { env })
    expect(tagged.code, tagged.stderr).toBe(0)
    expect(AccountAnalyticsSchema.parse(JSON.parse(tagged.stdout)).topCodes).toEqual([
      { id: door.id, name: 'Door', count: 1 },
    ])
    const none = await runCli(['analytics', '--all', '--tag', 'nobody-has-it', '--json'], { env })
    expect(AccountAnalyticsSchema.parse(JSON.parse(none.stdout)).totalEvents).toBe(0)
    expect((await runCli(['analytics', menu.id, '--tag', 'spring'], { env })).code).toBe(2)
    const tty = await runCli(
      [
        'analytics',
        '--all',
        '--from',
        '2026-11-10',
        '--to',
        '2026-11-11',
        '--tz',
        'Asia/Kathmandu',
        '--compare',
      ],
      {
        env,
        tty: 'stdout',
      },
    )
    const text = plain(tty.stdout)
    expect(text).toMatch(
      /Scans 3 {3}Unique visitors 2 {3}\(2026-11-10 to 2026-11-11, days in Asia\/Kathmandu\)/,
    )
    expect(text).toContain('Before (2026-11-08 to 2026-11-09): scans 1 (+200%), unique visitors 1 (+100%)')
    expect(text).toMatch(/Codes\n {2}Menu +█+ 2\n {2}Door +█+▏? ?1/)
    expect(text.split('\n').filter((line) => line.includes('│'))).toHaveLength(8)
  })

  it('refuses unclear windows with exit 2', async () => {
    for (const args of [
      ['analytics'],
      ['analytics', menu.id, '--all'],
      ['analytics', menu.id, '--period', '7d', '--from', '2026-11-01', '--to', '2026-11-02'],
      ['analytics', menu.id, '--from', '2026-11-01'],
    ]) {
      const res = await runCli(args, { env })
      expect(res.code, args.join(' ')).toBe(2)
    }
    const bad = await runCli(['analytics', menu.id, '--tz', 'Mars/Base'], { env })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('timezone')
  })
})

describe('qrctl scans export', () => {
  it('writes the CSV to a file, with progress and a summary on stderr', async () => {
    const file = join(home.dir, 'scans.csv')
    const res = await runCli(
      ['scans', 'export', '--from', '2026-11-01', '--to', '2026-11-20', '--tz', 'Asia/Kathmandu', '-o', file],
      { env },
    )
    expect(res.code, res.stderr).toBe(0)
    expect(res.stdout).toBe('')
    expect(res.stderr).toContain(`Exported 4 scans to ${file}`)
    const csv = readFileSync(file, 'utf8')
    const lines = csv.trimEnd().split('\r\n')
    expect(lines[0]).toBe(
      'scannedAt,qrCodeId,shortCode,name,device,browser,os,country,city,referrer,visitorId',
    )
    expect(lines[1]).toMatch(/^2026-11-09T15:45:00\.000\+05:45,/)
    expect(lines).toHaveLength(5)
    expect(existsSync(`${file}.part`)).toBe(false)
    const again = await runCli(
      ['scans', 'export', '--from', '2026-11-01', '--to', '2026-11-20', '-o', file],
      { env },
    )
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('--force')
  })

  it('streams to stdout when no file is given, and shows live progress on a terminal’s stderr', async () => {
    const piped = await runCli(
      ['scans', 'export', '--from', '2026-11-11', '--to', '2026-11-11', '--codes', door.id],
      { env },
    )
    expect(piped.code).toBe(0)
    expect(piped.stdout.trimEnd().split(/\r?\n/)).toHaveLength(2)
    const file = join(home.dir, 'tty.csv')
    const tty = await runCli(['scans', 'export', '--from', '2026-11-01', '--to', '2026-11-20', '-o', file], {
      env,
      tty: 'stderr',
    })
    expect(tty.code).toBe(0)
    expect(tty.stderr).toContain('Exporting…')
    expect(plain(tty.stderr)).toContain('Exported 4 scans')
  })

  it('leaves no file behind when the server refuses the export', async () => {
    const file = join(home.dir, 'refused.csv')
    writeFileSync(join(home.dir, 'unrelated.txt'), 'x')
    const res = await runCli(['scans', 'export', '--from', '2026-11-02', '--to', '2026-11-01', '-o', file], {
      env,
    })
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('to')
    expect(existsSync(file)).toBe(false)
    expect(existsSync(`${file}.part`)).toBe(false)
  })
})
