import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { QrCode } from '@qrctl/sdk'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { AGENTS } from '../redirects/scan-helpers.js'
import { startServer, type TestServer } from '../support/server.js'
import { apiEnv, buildCli, type Home, plain, runCli, tempHome } from './support/cli.js'

let server: TestServer
let home: Home
let env: Record<string, string>

beforeAll(async () => {
  buildCli()
  server = await startServer()
}, 180_000)
afterAll(async () => {
  await server.close()
  home?.cleanup()
})
beforeEach(async () => {
  home?.cleanup()
  home = tempHome()
  env = apiEnv(home, server, (await server.createAccount()).apiKey)
})

const where = async (code: QrCode, ua: string = AGENTS.windows.ua, query = '') => {
  const res = await fetch(`${code.shortUrl}${query}`, { redirect: 'manual', headers: { 'user-agent': ua } })
  return res.status === 302 ? res.headers.get('location') : res.status
}

async function create(args: string[], options: Parameters<typeof runCli>[1] = {}): Promise<QrCode> {
  const res = await runCli(
    ['create', '--name', 'Rules', '--content', 'https://example.com/app', '--json', ...args],
    {
      env,
      ...options,
    },
  )
  expect(res.code, res.stderr).toBe(0)
  return JSON.parse(res.stdout) as QrCode
}

describe('qrctl create and update with redirect flags', () => {
  it('creates an app-store split from --rule flags, with UTM and a scan limit', async () => {
    const code = await create([
      '--rule',
      'os=ios -> https://apps.apple.com/app/id1',
      '--rule',
      'os=android; country=DE,AT -> https://play.google.com/store/apps/details?id=x',
      '--utm-source',
      'cli',
      '--max-scans',
      '5',
      '--after-limit-url',
      'https://example.com/over',
      '--forward-query',
    ])
    expect(code).toMatchObject({
      rules: [
        { targetUrl: 'https://apps.apple.com/app/id1', conditions: [{ type: 'os', values: ['ios'] }] },
        {
          targetUrl: 'https://play.google.com/store/apps/details?id=x',
          conditions: [
            { type: 'os', values: ['android'] },
            { type: 'country', values: ['DE', 'AT'] },
          ],
        },
      ],
      utm: { source: 'cli' },
      maxScans: 5,
      afterLimitUrl: 'https://example.com/over',
      forwardQuery: true,
      hasPassword: false,
    })
    expect(await where(code, AGENTS.iphone.ua, '?t=1')).toBe(
      'https://apps.apple.com/app/id1?utm_source=cli&t=1',
    )
    const shown = await runCli(['get', code.id], { env, tty: 'stdout' })
    expect(shown.code, shown.stderr).toBe(0)
    expect(plain(shown.stdout)).toMatch(
      /Redirects\s+2 rules, at most 5 scans → example\.com\/over, utm source=cli, forwards the query/,
    )
    const piped = await runCli(['get', code.id], { env })
    expect(piped.stdout).not.toContain('Redirects')
  })

  it('reads --rules from a file, parses schedule and query conditions, and takes dates and a password', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qrctl-rules-'))
    const file = join(dir, 'rules.json')
    writeFileSync(
      file,
      JSON.stringify([
        { targetUrl: 'https://example.com/tablet', conditions: [{ type: 'device', values: ['tablet'] }] },
      ]),
    )
    const code = await create([
      '--rules',
      file,
      '--rule',
      'schedule=Europe/Berlin mon,tue 11:00-15:00; query=table=4 -> https://example.com/lunch',
      '--expires-at',
      '2030-01-01T00:00:00+01:00',
      '--expired-url',
      'https://example.com/over',
      '--password',
      'letmein',
    ])
    expect(code.rules).toEqual([
      { targetUrl: 'https://example.com/tablet', conditions: [{ type: 'device', values: ['tablet'] }] },
      {
        targetUrl: 'https://example.com/lunch',
        conditions: [
          { type: 'schedule', timezone: 'Europe/Berlin', days: ['mon', 'tue'], from: '11:00', to: '15:00' },
          { type: 'query', key: 'table', value: '4' },
        ],
      },
    ])
    expect(code).toMatchObject({ expiresAt: '2029-12-31T23:00:00.000Z', hasPassword: true })
    expect(JSON.stringify(code)).not.toContain('letmein')
  })

  it('reads --password from stdin when its value is omitted, and --no-… clears on update', async () => {
    const code = await create(['--password', '--max-scans', '3'], { input: 'from stdin\n' })
    expect(code).toMatchObject({ hasPassword: true, maxScans: 3 })
    const res = await runCli(
      ['update', code.id, '--no-password', '--no-max-scans', '--utm-medium', 'print', '--json'],
      { env },
    )
    expect(res.code, res.stderr).toBe(0)
    expect(JSON.parse(res.stdout)).toMatchObject({
      hasPassword: false,
      maxScans: null,
      utm: { medium: 'print' },
    })
    const more = await runCli(['update', code.id, '--utm-source', 'flyer', '--json'], { env })
    expect(JSON.parse(more.stdout).utm).toEqual({ medium: 'print', source: 'flyer' })
  })

  it('prompts for --password on a terminal without echoing it, and the typed one opens the code', async () => {
    const res = await runCli(
      ['create', '--name', 'Staff', '--content', 'https://example.com/staff', '--password'],
      { env, tty: 'both', answers: [{ when: /> $/, send: 'typed secret\r' }] },
    )
    expect(res.code, res.stdout).toBe(0)
    const out = plain(res.stdout)
    expect(out).toContain('Password visitors must type')
    expect(out).not.toContain('typed secret')
    const shortUrl = /http:\/\/127\.0\.0\.1:\d+\/r\/\w{7}/.exec(out)?.[0] as string
    const post = (password: string) =>
      fetch(shortUrl, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': AGENTS.iphone.ua },
        body: new URLSearchParams({ password }).toString(),
      })
    expect((await post('wrong')).status).toBe(401)
    expect((await post('typed secret')).headers.get('location')).toBe('https://example.com/staff')
  })

  it('names the flag of a refused value, and refuses a malformed --rule before any request', async () => {
    const bad = await runCli(
      [
        'create',
        '--name',
        'x',
        '--content',
        'https://example.com',
        '--rule',
        'schedule=Mars/Base -> https://example.com/x',
      ],
      { env },
    )
    expect(bad.code).toBe(1)
    expect(plain(bad.stderr)).toContain('--rule/--rules')
    const malformed = await runCli(
      ['create', '--name', 'x', '--content', 'https://example.com', '--rule', 'os=ios'],
      {
        env,
      },
    )
    expect(malformed.code).toBe(2)
    expect(plain(malformed.stderr)).toContain('CONDITION[; CONDITION…] -> URL')
    expect(malformed.stdout).toBe('')
  })
})
