import { afterAll, describe, expect, it } from 'vitest'
import { api, createCode, dynamicCode, UNLIMITED } from '../api/helpers.js'
import { totalScans } from '../redirects/scan-helpers.js'
import { captureLogger } from '../support/capture-logger.js'
import { type ServerProcess, startServerProcess } from '../support/process.js'
import { dialects, startServer, type TestServer } from '../support/server.js'

const TARGET = 'https://example.com/giveaway'
const ALL_GONE = 'https://example.com/all-gone'
const PHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1'

/** Fires every scan at once, spread over the servers, and counts where each was sent. */
async function fire(urls: string[], shortCode: string, count: number): Promise<Map<string, number>> {
  const answers = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const res = await fetch(`${urls[i % urls.length]}/r/${shortCode}`, {
        redirect: 'manual',
        headers: { 'user-agent': PHONE },
      })
      await res.arrayBuffer()
      return res.status === 302 ? (res.headers.get('location') as string) : String(res.status)
    }),
  )
  const counts = new Map<string, number>()
  for (const answer of answers) counts.set(answer, (counts.get(answer) ?? 0) + 1)
  return counts
}

describe.each(dialects())('the exact scan limit on %s', (dialect) => {
  let server: TestServer
  let second: ServerProcess | undefined
  const capture = captureLogger()
  afterAll(async () => {
    second?.child.kill('SIGTERM')
    await second?.done
    await server?.close()
  })

  it('lets exactly maxScans of many concurrent scans through, in one process and across two', async () => {
    server = await startServer({ dialect, env: UNLIMITED, logger: capture.logger })
    const client = api(server, server.apiKey)

    // One process: 120 scans at once at a limit of 30.
    const one = await createCode(
      client,
      dynamicCode({ targetUrl: TARGET, maxScans: 30, afterLimitUrl: ALL_GONE }),
    )
    const inOne = await fire([server.baseUrl], one.shortCode as string, 120)
    expect(Object.fromEntries(inOne)).toEqual({ [TARGET]: 30, [ALL_GONE]: 90 })
    await server.running.scans.flush()
    // Every 302 is a scan, to the target or not.
    expect(await totalScans(client, one.id)).toBe(120)
    // The hook for webhooks (#18) ran once, for the 30th scan.
    const reached = capture.entries.filter((e) => e.msg === 'scan limit reached')
    expect(reached.map((e) => e.fields)).toEqual([{ qrCodeId: one.id, maxScans: 30 }])

    // Two processes on one database: this one and a `qrctl-server start` child.
    second = await startServerProcess({
      DATABASE_URL: server.databaseUrl,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '1000000',
    })
    const two = await createCode(client, dynamicCode({ targetUrl: TARGET, maxScans: 50 }))
    const inTwo = await fire([server.baseUrl, second.url], two.shortCode as string, 240)
    expect(Object.fromEntries(inTwo)).toEqual({ [TARGET]: 50, '410': 190 })

    // Raising the limit reopens the code for exactly the difference.
    await client.patch(`/qr-codes/${two.id}`, { maxScans: 60 })
    const reopened = await fire([server.baseUrl, second.url], two.shortCode as string, 40)
    expect(Object.fromEntries(reopened)).toEqual({ [TARGET]: 10, '410': 30 })
  })
})
