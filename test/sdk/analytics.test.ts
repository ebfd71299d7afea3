import { AccountAnalytics, ScansReport } from '@qrctl/contract'
import { Qrctl, QrctlNotFoundError, QrctlValidationError } from '@qrctl/sdk'
import { ManualClock } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scansAt } from '../analytics/import-helpers.js'
import { MISSING_ID } from '../api/helpers.js'
import { startServer, type TestServer } from '../support/server.js'

let server: TestServer
let qrctl: Qrctl
let ids: string[]

beforeAll(async () => {
  server = await startServer({ clock: new ManualClock(new Date('2026-11-20T12:00:00.000Z')) })
  const { apiKey, accountId } = await server.createAccount()
  qrctl = new Qrctl({ baseUrl: server.baseUrl, apiKey })
  ids = []
  for (const name of ['Menu', 'Door']) {
    const code = await qrctl.qrCodes.create({
      name,
      contentType: 'url',
      content: 'https://example.com',
      type: 'dynamic',
    })
    ids.push(code.id)
  }
  await scansAt(server, accountId, ids[0] as string, [
    { at: '2026-11-10T18:20:00.000Z', visitor: 'a' },
    { at: '2026-11-11T09:00:00.000Z', visitor: 'b' },
  ])
  await scansAt(server, accountId, ids[1] as string, [{ at: '2026-11-11T10:00:00.000Z', visitor: 'a' }])
})
afterAll(async () => {
  await qrctl?.close()
  await server?.close()
})

describe('analytics through the SDK', () => {
  it('reads account-wide analytics in a zone, with topCodes and the previous window', async () => {
    const data = await qrctl.analytics.get({
      from: '2026-11-11',
      to: '2026-11-11',
      timezone: 'Asia/Kathmandu',
      compare: 'previous',
    })
    AccountAnalytics.parse(data)
    expect(data).toMatchObject({ totalEvents: 3, uniqueVisitors: 2, timezone: 'Asia/Kathmandu' })
    expect(data.topCodes.map((c) => [c.name, c.count])).toEqual([
      ['Menu', 2],
      ['Door', 1],
    ])
    expect(data.previous).toEqual({ from: '2026-11-10', to: '2026-11-10', totalEvents: 0, uniqueVisitors: 0 })
    const one = await qrctl.analytics.get({ qrCodeIds: ids[1], period: '30d' })
    expect(one.totalEvents).toBe(1)
  })

  it('reads one code’s scans and its windowed analytics', async () => {
    const report = await qrctl.analytics.scans(ids[0] as string, { from: '2026-11-10', to: '2026-11-11' })
    ScansReport.parse(report)
    expect(report.byDate).toEqual([
      { date: '2026-11-10', count: 1 },
      { date: '2026-11-11', count: 1 },
    ])
    const local = await qrctl.qrCodes.analytics(ids[0] as string, {
      from: '2026-11-11',
      to: '2026-11-11',
      timezone: 'Asia/Kathmandu',
    })
    expect(local.totalEvents).toBe(2)
  })

  it('streams the CSV export', async () => {
    const stream = await qrctl.analytics.export({
      from: '2026-11-01',
      to: '2026-11-20',
      timezone: 'Asia/Kathmandu',
    })
    let text = ''
    const decoder = new TextDecoder()
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true })
    const lines = text.trimEnd().split('\r\n')
    expect(lines).toHaveLength(4)
    expect(lines[0]).toMatch(/^scannedAt,qrCodeId,shortCode,name,/)
    expect(lines[1]).toMatch(/^2026-11-11T00:05:00\.000\+05:45,/)
  })

  it('throws typed errors for a bad window and an unknown code', async () => {
    await expect(qrctl.analytics.get({ from: '2026-11-02', to: '2026-11-01' })).rejects.toBeInstanceOf(
      QrctlValidationError,
    )
    await expect(
      qrctl.analytics.export({ from: '2026-11-01', to: '2026-11-02', qrCodeIds: MISSING_ID }),
    ).rejects.toBeInstanceOf(QrctlNotFoundError)
    await expect(qrctl.analytics.scans(MISSING_ID)).rejects.toBeInstanceOf(QrctlNotFoundError)
  })
})
