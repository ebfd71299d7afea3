import { randomUUID } from 'node:crypto'
import {
  type CreateQrCodeParams,
  Qrctl,
  QrctlApiError,
  QrctlAuthenticationError,
  QrctlConflictError,
  QrctlConnectionError,
  QrctlError,
  QrctlNotFoundError,
  QrctlPermissionError,
  QrctlRateLimitError,
  QrctlValidationError,
} from '@qrctl/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, startServer, type TestServer } from '../support/server.js'
import { clientOfNewAccount, startTcpProxy } from './live.js'

let server: TestServer

beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server?.close()
})

async function failure(promise: Promise<unknown>): Promise<QrctlApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(QrctlApiError)
  expect(error).toBeInstanceOf(QrctlError)
  const apiError = error as QrctlApiError
  expect(apiError.requestId).toMatch(/\S/)
  expect(apiError.message).toBe(apiError.details.message)
  return apiError
}

describe('error classes against a live server', () => {
  it('QrctlValidationError: 400 with issues that name the field', async () => {
    const qrctl = await clientOfNewAccount(server)
    const error = await failure(
      qrctl.qrCodes.create({ name: 'x', contentType: 'url', content: 'ftp://nope' }),
    )
    expect(error).toBeInstanceOf(QrctlValidationError)
    expect(error).toMatchObject({ status: 400, code: 'validation_error' })
    expect((error as QrctlValidationError).issues).toContainEqual(
      expect.objectContaining({ path: 'content', message: expect.any(String) }),
    )
    const snake = { name: 'x', contentType: 'url', content: 'https://e.com', target_url: 'https://e.com' }
    const hinted = await failure(qrctl.qrCodes.create(snake as unknown as CreateQrCodeParams))
    expect(JSON.stringify((hinted as QrctlValidationError).issues)).toContain('targetUrl')
  })

  it('QrctlAuthenticationError: 401 for an unknown key', async () => {
    const qrctl = new Qrctl({ apiKey: `qrk_${'Z'.repeat(40)}`, baseUrl: server.baseUrl })
    const error = await failure(qrctl.qrCodes.list())
    expect(error).toBeInstanceOf(QrctlAuthenticationError)
    expect(error).toMatchObject({ status: 401, code: 'unauthorized' })
  })

  it('QrctlPermissionError: 403 without the paid plan, and for a read key that writes', async () => {
    const free = await clientOfNewAccount(server, {}, { plan: 'free' })
    const planError = await failure(free.qrCodes.list())
    expect(planError).toBeInstanceOf(QrctlPermissionError)
    expect(planError).toMatchObject({ status: 403, code: 'plan_required' })

    const reader = await clientOfNewAccount(server, {}, { scope: 'read' })
    expect((await reader.qrCodes.list()).total).toBe(0)
    const scopeError = await failure(reader.qrCodes.create({ name: 'x', contentType: 'text', content: 'x' }))
    expect(scopeError).toBeInstanceOf(QrctlPermissionError)
    expect(scopeError).toMatchObject({ status: 403, code: 'insufficient_scope' })
  })

  it("QrctlNotFoundError: 404 for an unknown id and for another account's code", async () => {
    const owner = await clientOfNewAccount(server)
    const other = await clientOfNewAccount(server)
    const code = await owner.qrCodes.create({ name: 'mine', contentType: 'text', content: 'mine' })
    // One after the other: started together, the second could reject before anyone awaits it.
    for (const call of [() => other.qrCodes.get(code.id), () => owner.qrCodes.get(randomUUID())]) {
      const error = await failure(call())
      expect(error).toBeInstanceOf(QrctlNotFoundError)
      expect(error).toMatchObject({ status: 404, code: 'not_found' })
    }
  })

  it('QrctlConflictError: 409 for an Idempotency-Key reused with another body, not retried', async () => {
    const statuses: number[] = []
    const qrctl = await clientOfNewAccount(server, { onResponse: (event) => statuses.push(event.status) })
    const key = `reuse-${randomUUID()}`
    await qrctl.qrCodes.create({ name: 'first', contentType: 'text', content: 'a' }, { idempotencyKey: key })
    const error = await failure(
      qrctl.qrCodes.create({ name: 'second', contentType: 'text', content: 'b' }, { idempotencyKey: key }),
    )
    expect(error).toBeInstanceOf(QrctlConflictError)
    expect(error).toMatchObject({
      status: 409,
      code: 'conflict',
      details: { reason: 'mismatch', idempotencyKey: key },
    })
    expect(statuses).toEqual([201, 409])
  })

  it('QrctlRateLimitError: 429 with retryAfter when retries are off', async () => {
    const qrctl = await clientOfNewAccount(server, { maxRetries: 0 }, { rateLimitPerMinute: 2 })
    await qrctl.qrCodes.list()
    await qrctl.qrCodes.list()
    const error = await failure(qrctl.qrCodes.list())
    expect(error).toBeInstanceOf(QrctlRateLimitError)
    expect(error).toMatchObject({ status: 429, code: 'rate_limited' })
    const { retryAfter } = error as QrctlRateLimitError
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(error.headers.get('retry-after')).toBe(String(retryAfter))
    expect(qrctl.lastRateLimit).toMatchObject({ limit: 2, remaining: 0 })
  })

  it('QrctlConnectionError: nothing listening, after the retries', async () => {
    const port = await freePort()
    const retries: number[] = []
    const qrctl = new Qrctl({
      apiKey: server.apiKey,
      baseUrl: `http://127.0.0.1:${port}`,
      maxRetries: 1,
      onRetry: (event) => retries.push(event.retry),
    })
    const error = await qrctl.qrCodes.list().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(QrctlConnectionError)
    expect(error).toMatchObject({ reason: 'network', message: expect.stringContaining('ECONNREFUSED') })
    expect(retries).toEqual([1])
  })

  it('QrctlConnectionError: a server that never answers times out', async () => {
    const proxy = await startTcpProxy(server.baseUrl, () => 'black-hole')
    const qrctl = new Qrctl({ apiKey: server.apiKey, baseUrl: proxy.url, timeoutMs: 300, maxRetries: 1 })
    const started = Date.now()
    const error = await qrctl.qrCodes.list().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(QrctlConnectionError)
    expect(error).toMatchObject({ reason: 'timeout' })
    expect(Date.now() - started).toBeGreaterThanOrEqual(600)
    expect(proxy.connectionsUsed()).toBe(2)
    await qrctl.close()
    await proxy.close()
  })
})
