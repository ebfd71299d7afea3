import { Qrctl, type ResponseEvent, type RetryEvent } from '@qrctl/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from '../support/server.js'
import { clientOfNewAccount, holdIdempotencyKey, startTcpProxy, textCodes } from './live.js'

let server: TestServer

beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server?.close()
})

describe('retries against a live server', () => {
  it('waits out a 429 for Retry-After seconds and then succeeds', { timeout: 120_000 }, async () => {
    const retries: RetryEvent[] = []
    const statuses: number[] = []
    const qrctl = await clientOfNewAccount(
      server,
      { onRetry: (event) => retries.push(event), onResponse: (event) => statuses.push(event.status) },
      { rateLimitPerMinute: 2 },
    )
    await qrctl.qrCodes.list()
    await qrctl.qrCodes.create({ name: 'a', contentType: 'text', content: 'a' })
    expect(qrctl.lastRateLimit).toMatchObject({ limit: 2, remaining: 0 })
    const started = Date.now()
    const page = await qrctl.qrCodes.list()
    const waitedMs = Date.now() - started
    expect(page.total).toBe(1)
    expect(statuses).toEqual([200, 201, 429, 200])
    expect(retries).toHaveLength(1)
    const retryAfter = Number(
      retries[0]?.error && 'retryAfter' in retries[0].error ? retries[0].error.retryAfter : 0,
    )
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retries[0]?.delayMs).toBeGreaterThanOrEqual(retryAfter * 1000)
    expect(waitedMs).toBeGreaterThanOrEqual(retryAfter * 1000)
    expect(qrctl.lastRateLimit?.remaining).toBe(1)
    await qrctl.close()
  })

  it('retries a batch whose answer was lost with the same Idempotency-Key, creating nothing twice', async () => {
    const sent: { key: string | null; url: string }[] = []
    const replayed: (string | null)[] = []
    let lost = false
    // The request reaches the server and its answer arrives, then the "network" fails.
    const flakyFetch = async (url: string, init: RequestInit): Promise<Response> => {
      sent.push({ key: new Headers(init.headers).get('idempotency-key'), url })
      const response = await fetch(url, init)
      if (!lost && url.includes('/qr-codes/batch')) {
        lost = true
        await response.arrayBuffer()
        throw new TypeError('fetch failed', {
          cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
        })
      }
      return response
    }
    const qrctl = await clientOfNewAccount(server, {
      fetch: flakyFetch,
      onResponse: (event: ResponseEvent) => replayed.push(event.headers.get('idempotent-replayed')),
    })
    const result = await qrctl.qrCodes.batch(textCodes(3, 'flaky'))
    expect(result.created).toBe(3)
    expect(sent).toHaveLength(2)
    expect(sent[0]?.key).toMatch(/^[0-9a-f-]{36}$/)
    expect(sent[1]?.key).toBe(sent[0]?.key)
    expect(replayed).toEqual(['true'])
    const page = await qrctl.qrCodes.list()
    expect(page.total).toBe(3)
    expect(page.data.map((code) => code.id).sort()).toEqual(result.items.map((code) => code.id).sort())
  })

  it('survives a dropped connection mid-createMany through a real TCP proxy without duplicates', async () => {
    // Connection 2 carries the second batch: the server creates it, the client never hears.
    const proxy = await startTcpProxy(server.baseUrl, (n) => (n === 1 ? 'lose-answer' : 'forward'))
    const { apiKey } = await server.createAccount()
    const retries: RetryEvent[] = []
    const qrctl = new Qrctl({ apiKey, baseUrl: proxy.url, onRetry: (event) => retries.push(event) })
    const result = await qrctl.qrCodes.createMany(textCodes(250, 'proxied'))
    expect(result.created).toBe(250)
    expect(result.errors).toEqual([])
    expect(retries).toHaveLength(1)
    expect(retries[0]?.error.name).toBe('QrctlConnectionError')
    await qrctl.close()
    await proxy.close()

    const direct = new Qrctl({ apiKey, baseUrl: server.baseUrl })
    const names: string[] = []
    for await (const code of direct.qrCodes.listAll()) names.push(code.name)
    expect(names).toHaveLength(250)
    expect(new Set(names).size).toBe(250)
    await direct.close()
  })

  it('retries an attempt that timed out', async () => {
    const proxy = await startTcpProxy(server.baseUrl, (n) => (n === 0 ? 'black-hole' : 'forward'))
    const { apiKey } = await server.createAccount()
    const qrctl = new Qrctl({ apiKey, baseUrl: proxy.url, timeoutMs: 300 })
    const code = await qrctl.qrCodes.create({ name: 'late', contentType: 'text', content: 'late' })
    expect(code.name).toBe('late')
    expect(proxy.connectionsUsed()).toBe(2)
    expect((await qrctl.qrCodes.list()).total).toBe(1)
    await qrctl.close()
    await proxy.close()
  })
})

describe('Idempotency-Key against a live server', () => {
  it('shows a POST the server replayed as lastResponse.replayed', async () => {
    const qrctl = await clientOfNewAccount(server)
    const params = { name: 'once', contentType: 'text', content: 'once' } as const
    const first = await qrctl.qrCodes.create(params, { idempotencyKey: 'replay-me' })
    expect(qrctl.lastResponse).toMatchObject({ status: 201, replayed: false, requestId: expect.any(String) })
    const firstRequestId = qrctl.lastResponse?.requestId
    const again = await qrctl.qrCodes.create(params, { idempotencyKey: 'replay-me' })
    expect(again).toEqual(first)
    expect(qrctl.lastResponse).toMatchObject({ status: 201, replayed: true, requestId: expect.any(String) })
    expect(qrctl.lastResponse?.requestId).not.toBe(firstRequestId)
    expect(qrctl.lastResponse?.headers.get('idempotent-replayed')).toBe('true')
    expect((await qrctl.qrCodes.list()).total).toBe(1)
    expect(qrctl.lastResponse).toMatchObject({ status: 200, replayed: false })
    await qrctl.close()
  })

  it('waits out a 409 in_progress for the caller’s own key, then gets the replayed answer', async () => {
    const { accountId, apiKey } = await server.createAccount()
    const statuses: number[] = []
    let finishing: Promise<void> | undefined
    let held: { finish(): Promise<void> } | undefined
    const qrctl = new Qrctl({
      apiKey,
      baseUrl: server.baseUrl,
      onResponse: (event) => {
        statuses.push(event.status)
        // The request "still running" finishes while the SDK backs off (250 ms at least).
        if (event.status === 409) finishing ??= held?.finish()
      },
    })
    const codes = textCodes(3, 'held')
    const first = await qrctl.qrCodes.batch(codes, { idempotencyKey: 'held-batch' })
    held = await holdIdempotencyKey(server, accountId, 'held-batch')
    const again = await qrctl.qrCodes.batch(codes, { idempotencyKey: 'held-batch' })
    expect(again).toEqual(first)
    expect(statuses[0]).toBe(201)
    expect(statuses[1]).toBe(409)
    expect(statuses.at(-1)).toBe(201)
    expect(qrctl.lastResponse).toMatchObject({ status: 201, replayed: true })
    expect((await qrctl.qrCodes.list()).total).toBe(3)
    await finishing
    await qrctl.close()
  })
})
