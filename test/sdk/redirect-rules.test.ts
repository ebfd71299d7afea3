import { QrCode as QrCodeSchema } from '@qrctl/contract'
import { type Qrctl, QrctlValidationError, type RedirectRule, type Utm } from '@qrctl/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AGENTS } from '../redirects/scan-helpers.js'
import { startServer, type TestServer } from '../support/server.js'
import { clientOfNewAccount } from './live.js'

let server: TestServer
let qrctl: Qrctl

beforeAll(async () => {
  server = await startServer()
  qrctl = await clientOfNewAccount(server)
})
afterAll(async () => {
  await qrctl?.close()
  await server?.close()
})

const where = async (shortUrl: string, headers: Record<string, string> = {}) => {
  const res = await fetch(shortUrl, {
    redirect: 'manual',
    headers: { 'user-agent': AGENTS.windows.ua, ...headers },
  })
  return res.status === 302 ? res.headers.get('location') : res.status
}

describe('redirect rules through the SDK', () => {
  it('creates a code with rules, a limit and UTM, and PATCHes them away with null', async () => {
    const rules: RedirectRule[] = [
      { targetUrl: 'https://example.com/de', conditions: [{ type: 'language', values: ['de'] }] },
    ]
    const utm: Utm = { source: 'sdk', campaign: 'launch week' }
    const code = await qrctl.qrCodes.create({
      name: 'Launch',
      contentType: 'url',
      content: 'https://example.com/launch',
      type: 'dynamic',
      rules,
      utm,
      maxScans: 100,
    })
    QrCodeSchema.parse(code)
    expect(code).toMatchObject({ rules, utm, maxScans: 100, hasPassword: false, forwardQuery: false })
    const shortUrl = code.shortUrl as string
    expect(await where(shortUrl, { 'accept-language': 'de-CH, en;q=0.5' })).toBe(
      'https://example.com/de?utm_source=sdk&utm_campaign=launch%20week',
    )
    const cleared = await qrctl.qrCodes.update(code.id, { rules: null, utm: null, maxScans: null })
    expect(cleared).toMatchObject({ rules: null, utm: null, maxScans: null })
    expect(await where(shortUrl, { 'accept-language': 'de' })).toBe('https://example.com/launch')
  })

  it('throws a QrctlValidationError naming the rule condition’s full path', async () => {
    const error = await qrctl.qrCodes
      .create({
        name: 'Bad',
        contentType: 'url',
        content: 'https://example.com',
        type: 'dynamic',
        rules: [
          {
            targetUrl: 'https://example.com/x',
            conditions: [{ type: 'schedule', timezone: 'Nowhere/Town' }],
          },
        ],
      })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(QrctlValidationError)
    expect((error as QrctlValidationError).issues.map((i) => i.path)).toEqual([
      'rules.0.conditions.0.timezone',
    ])
  })
})
