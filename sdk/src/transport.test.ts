import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { API_KEY, apiError, fakeFetch, ID, json, networkError, qrCode } from '../test/fake-fetch.js'
import {
  Qrctl,
  QrctlConflictError,
  QrctlConnectionError,
  QrctlNotFoundError,
  QrctlRateLimitError,
  QrctlServerError,
  QrctlValidationError,
  type ResponseEvent,
  type RetryEvent,
} from './index.js'

const NEW_CODE = { name: 'Menu', contentType: 'url', content: 'https://example.com/menu' } as const
const rateHeaders = (remaining: number, reset = 42) => ({
  'x-ratelimit-limit': '100',
  'x-ratelimit-remaining': String(remaining),
  'x-ratelimit-reset': String(reset),
})

/** Runs `call` while fake timers skip every backoff wait; returns the settled promise. */
async function settle<T>(call: Promise<T>): Promise<T> {
  const outcome = call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  )
  await vi.runAllTimersAsync()
  const result = await outcome
  if ('error' in result) throw result.error
  return result.value
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
})
afterEach(() => {
  vi.useRealTimers()
})

describe('requests', () => {
  it('authenticates, sends JSON and unwraps { data }', async () => {
    const fetch = fakeFetch(json(201, { data: qrCode() }))
    const code = await new Qrctl({ apiKey: API_KEY, fetch }).qrCodes.create(NEW_CODE)
    expect(code.id).toBe(ID)
    const [call] = fetch.calls
    expect(call).toMatchObject({ method: 'POST', url: 'http://localhost:3000/api/v1/qr-codes' })
    expect(call?.headers).toMatchObject({
      authorization: `Bearer ${API_KEY}`,
      'content-type': 'application/json',
      'user-agent': expect.stringMatching(/^qrctl-sdk\/1\.0\.0 node\/v\d+/),
    })
    expect(JSON.parse(call?.body ?? '')).toEqual(NEW_CODE)
  })

  it('puts paging and filters in the query string and escapes ids in the path', async () => {
    const page = { data: [], total: 0, limit: 10, offset: 20 }
    const fetch = fakeFetch(json(200, page), json(200, { data: qrCode() }))
    const qrctl = new Qrctl({ apiKey: API_KEY, fetch })
    expect(await qrctl.qrCodes.list({ limit: 10, offset: 20, type: 'dynamic' })).toEqual(page)
    await qrctl.qrCodes.get('a/b?c')
    expect(fetch.calls.map((call) => call.url)).toEqual([
      'http://localhost:3000/api/v1/qr-codes?limit=10&offset=20&type=dynamic',
      'http://localhost:3000/api/v1/qr-codes/a%2Fb%3Fc',
    ])
  })

  it('refuses an empty or dot-only id instead of calling another route', async () => {
    const fetch = fakeFetch()
    const qrctl = new Qrctl({ apiKey: API_KEY, fetch })
    await expect(qrctl.qrCodes.get('')).rejects.toThrow(/expected an id/)
    await expect(qrctl.showcases.delete('..')).rejects.toThrow(/expected an id/)
    expect(fetch.calls).toHaveLength(0)
  })

  it('returns images as bytes', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])
    const fetch = fakeFetch(new Response(png, { headers: { 'content-type': 'image/png' } }))
    const bytes = await new Qrctl({ apiKey: API_KEY, fetch }).qrCodes.image(ID, { format: 'png', size: 256 })
    expect(bytes).toBeInstanceOf(Uint8Array)
    expect([...bytes]).toEqual([...png])
    expect(fetch.calls[0]?.url).toBe(`http://localhost:3000/api/v1/qr-codes/${ID}/image.png?size=256`)
  })

  it('maps error answers to their classes without retrying 4xx', async () => {
    const issues = [{ path: 'content', message: 'Must not be empty' }]
    const fetch = fakeFetch(
      apiError(404, 'not_found', {}, { 'x-request-id': 'req_404' }),
      apiError(400, 'validation_error', { issues }),
    )
    const qrctl = new Qrctl({ apiKey: API_KEY, fetch })
    const notFound = await qrctl.qrCodes.get(ID).catch((error: unknown) => error)
    expect(notFound).toBeInstanceOf(QrctlNotFoundError)
    expect(notFound).toMatchObject({ status: 404, code: 'not_found', requestId: 'req_404' })
    const invalid = await qrctl.qrCodes.create({ ...NEW_CODE, content: '' }).catch((error: unknown) => error)
    expect(invalid).toBeInstanceOf(QrctlValidationError)
    expect((invalid as QrctlValidationError).issues).toEqual(issues)
    expect(fetch.calls).toHaveLength(2)
  })
})

describe('retries', () => {
  it('retries a 503 and returns the later success', async () => {
    const fetch = fakeFetch(apiError(503, 'internal_error'), json(200, { data: qrCode() }))
    const code = await settle(new Qrctl({ apiKey: API_KEY, fetch }).qrCodes.get(ID))
    expect(code.id).toBe(ID)
    expect(fetch.calls).toHaveLength(2)
  })

  it('gives up after maxRetries (default 2) and throws the last error', async () => {
    const fetch = fakeFetch(...[1, 2, 3].map(() => apiError(500, 'internal_error')))
    const error = await settle(new Qrctl({ apiKey: API_KEY, fetch }).qrCodes.get(ID)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(QrctlServerError)
    expect(fetch.calls).toHaveLength(3)
  })

  it('does not retry with maxRetries: 0, for the client or for one call', async () => {
    const once = fakeFetch(apiError(500, 'internal_error'))
    await expect(new Qrctl({ apiKey: API_KEY, fetch: once, maxRetries: 0 }).qrCodes.get(ID)).rejects.toThrow(
      QrctlServerError,
    )
    expect(once.calls).toHaveLength(1)
    const perCall = fakeFetch(networkError())
    await expect(
      new Qrctl({ apiKey: API_KEY, fetch: perCall }).qrCodes.get(ID, { maxRetries: 0 }),
    ).rejects.toThrow(QrctlConnectionError)
    expect(perCall.calls).toHaveLength(1)
  })

  it('retries network errors and then throws QrctlConnectionError with the cause', async () => {
    const fetch = fakeFetch(networkError(), networkError(), networkError('ECONNREFUSED'))
    const error = await settle(new Qrctl({ apiKey: API_KEY, fetch }).qrCodes.list()).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(QrctlConnectionError)
    expect(error).toMatchObject({ reason: 'network', message: expect.stringContaining('ECONNREFUSED') })
    expect((error as Error).cause).toBeInstanceOf(TypeError)
    expect(fetch.calls).toHaveLength(3)
  })

  it('waits out a 429 for Retry-After seconds before trying again', async () => {
    const fetch = fakeFetch(
      apiError(429, 'rate_limited', { retryAfter: 3 }, { 'retry-after': '3', ...rateHeaders(0, 3) }),
      json(200, { data: qrCode() }, rateHeaders(99, 60)),
    )
    const qrctl = new Qrctl({ apiKey: API_KEY, fetch })
    const call = qrctl.qrCodes.get(ID)
    await vi.advanceTimersByTimeAsync(2_999)
    expect(fetch.calls).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect((await call).id).toBe(ID)
    expect(fetch.calls).toHaveLength(2)
    expect(qrctl.lastRateLimit).toMatchObject({ limit: 100, remaining: 99, reset: 60 })
  })

  it('does not hang on a Retry-After longer than a minute', async () => {
    const fetch = fakeFetch(apiError(429, 'rate_limited', { retryAfter: 3600 }))
    const error = await new Qrctl({ apiKey: API_KEY, fetch }).qrCodes.get(ID).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(QrctlRateLimitError)
    expect((error as QrctlRateLimitError).retryAfter).toBe(3600)
    expect(fetch.calls).toHaveLength(1)
  })

  it('throws QrctlRateLimitError with retryAfter once the retries are used up', async () => {
    const fetch = fakeFetch(...[1, 2, 3].map(() => apiError(429, 'rate_limited', { retryAfter: 1 })))
    const error = await settle(new Qrctl({ apiKey: API_KEY, fetch }).qrCodes.get(ID)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(QrctlRateLimitError)
    expect((error as QrctlRateLimitError).retryAfter).toBe(1)
    expect(fetch.calls).toHaveLength(3)
  })

  it('times out each attempt after timeoutMs and retries it', async () => {
    vi.useRealTimers()
    const hang = (call: { signal: AbortSignal | undefined }) =>
      new Promise<Response>((_, reject) =>
        call.signal?.addEventListener('abort', () => reject(call.signal?.reason)),
      )
    const fetch = fakeFetch(hang, json(200, { data: qrCode() }))
    const code = await new Qrctl({ apiKey: API_KEY, fetch, timeoutMs: 50 }).qrCodes.get(ID)
    expect(code.id).toBe(ID)
    const timedOut = fakeFetch(hang)
    const error = await new Qrctl({ apiKey: API_KEY, fetch: timedOut, timeoutMs: 50, maxRetries: 0 }).qrCodes
      .get(ID)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(QrctlConnectionError)
    expect(error).toMatchObject({ reason: 'timeout', message: expect.stringContaining('within 50 ms') })
  })

  it('stops retrying when the caller aborts, with the abort reason', async () => {
    const fetch = fakeFetch(apiError(503, 'internal_error'), json(200, { data: qrCode() }))
    const controller = new AbortController()
    const call = new Qrctl({ apiKey: API_KEY, fetch }).qrCodes.get(ID, { signal: controller.signal })
    const outcome = call.catch((e: unknown) => e)
    await vi.advanceTimersByTimeAsync(10)
    controller.abort(new Error('user cancelled'))
    expect(await outcome).toMatchObject({ message: 'user cancelled' })
    expect(fetch.calls).toHaveLength(1)
  })
})

describe('Idempotency-Key', () => {
  it('is sent on POSTs, the same on every retry of one call and new for the next call', async () => {
    const fetch = fakeFetch(
      networkError(),
      apiError(502, 'internal_error'),
      json(201, { data: qrCode() }),
      json(201, { data: { created: 0, errors: [], items: [] } }),
    )
    const qrctl = new Qrctl({ apiKey: API_KEY, fetch })
    await settle(qrctl.qrCodes.create(NEW_CODE))
    await settle(qrctl.qrCodes.batch([NEW_CODE]))
    const keys = fetch.calls.map((call) => call.headers['idempotency-key'])
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/)
    expect(keys[1]).toBe(keys[0])
    expect(keys[2]).toBe(keys[0])
    expect(keys[3]).toMatch(/^[0-9a-f-]{36}$/)
    expect(keys[3]).not.toBe(keys[0])
  })

  it('is not sent on GET, PATCH or DELETE', async () => {
    const fetch = fakeFetch(
      json(200, { data: qrCode() }),
      json(200, { data: qrCode() }),
      json(200, { success: true }),
    )
    const qrctl = new Qrctl({ apiKey: API_KEY, fetch })
    await qrctl.qrCodes.get(ID)
    await qrctl.qrCodes.update(ID, { name: 'x' })
    await qrctl.qrCodes.delete(ID)
    expect(fetch.calls.map((call) => call.method)).toEqual(['GET', 'PATCH', 'DELETE'])
    expect(fetch.calls.every((call) => call.headers['idempotency-key'] === undefined)).toBe(true)
  })

  it('is left out with maxRetries: 0 unless the caller gives one', async () => {
    const fetch = fakeFetch(json(201, { data: qrCode() }), json(201, { data: qrCode() }))
    const qrctl = new Qrctl({ apiKey: API_KEY, fetch, maxRetries: 0 })
    await qrctl.qrCodes.create(NEW_CODE)
    await qrctl.qrCodes.create(NEW_CODE, { idempotencyKey: 'order-17' })
    expect(fetch.calls.map((call) => call.headers['idempotency-key'])).toEqual([undefined, 'order-17'])
  })
})

describe('a 409 for an Idempotency-Key still in progress', () => {
  const inProgress = (call: { headers: Record<string, string> }) =>
    apiError(409, 'conflict', { reason: 'in_progress', idempotencyKey: call.headers['idempotency-key'] })
  const replayed = () => json(201, { data: qrCode() }, { 'idempotent-replayed': 'true' })

  it('is waited out when a retry overtakes the attempt whose answer was lost', async () => {
    const fetch = fakeFetch(networkError(), inProgress, replayed())
    const code = await settle(new Qrctl({ apiKey: API_KEY, fetch }).qrCodes.create(NEW_CODE))
    expect(code.id).toBe(ID)
    expect(fetch.calls).toHaveLength(3)
    const keys = new Set(fetch.calls.map((call) => call.headers['idempotency-key']))
    expect(keys.size).toBe(1)
  })

  it('is waited out with backoff on a first attempt when the caller chose the key', async () => {
    const retries: RetryEvent[] = []
    const fetch = fakeFetch(inProgress, replayed())
    const qrctl = new Qrctl({ apiKey: API_KEY, fetch, onRetry: (event) => retries.push(event) })
    const call = qrctl.qrCodes.create(NEW_CODE, { idempotencyKey: 'order-17' })
    await vi.advanceTimersByTimeAsync(249)
    expect(fetch.calls).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(251)
    expect((await call).id).toBe(ID)
    expect(fetch.calls.map((c) => c.headers['idempotency-key'])).toEqual(['order-17', 'order-17'])
    expect(retries).toHaveLength(1)
    expect(retries[0]).toMatchObject({ method: 'POST', retry: 1, error: expect.any(QrctlConflictError) })
    expect(retries[0]?.delayMs).toBeGreaterThanOrEqual(250)
    expect(retries[0]?.delayMs).toBeLessThanOrEqual(500)
  })

  it('is retried at most maxRetries times, then thrown', async () => {
    const fetch = fakeFetch(inProgress, inProgress, inProgress)
    const error = await settle(
      new Qrctl({ apiKey: API_KEY, fetch }).qrCodes.batch([NEW_CODE], { idempotencyKey: 'batch-1' }),
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(QrctlConflictError)
    expect((error as QrctlConflictError).details).toMatchObject({
      reason: 'in_progress',
      idempotencyKey: 'batch-1',
    })
    expect(fetch.calls).toHaveLength(3)
    const once = fakeFetch(inProgress)
    const qrctl = new Qrctl({ apiKey: API_KEY, fetch: once })
    await expect(
      qrctl.qrCodes.create(NEW_CODE, { idempotencyKey: 'order-17', maxRetries: 0 }),
    ).rejects.toThrow(QrctlConflictError)
    expect(once.calls).toHaveLength(1)
  })

  it('never retries a mismatch, on a first attempt or a retry', async () => {
    const mismatch = (call: { headers: Record<string, string> }) =>
      apiError(409, 'conflict', { reason: 'mismatch', idempotencyKey: call.headers['idempotency-key'] })
    const fetch = fakeFetch(mismatch, networkError(), mismatch)
    const qrctl = new Qrctl({ apiKey: API_KEY, fetch })
    const first = await qrctl.qrCodes
      .create(NEW_CODE, { idempotencyKey: 'order-17' })
      .catch((e: unknown) => e)
    expect(first).toBeInstanceOf(QrctlConflictError)
    expect((first as QrctlConflictError).details.reason).toBe('mismatch')
    await expect(settle(qrctl.qrCodes.create(NEW_CODE))).rejects.toThrow(QrctlConflictError)
    expect(fetch.calls).toHaveLength(3)
  })

  it('does not retry in_progress for another key, nor a 409 about something else', async () => {
    const fetch = fakeFetch(
      apiError(409, 'conflict', { reason: 'in_progress', idempotencyKey: 'someone-else' }),
      networkError(),
      apiError(409, 'conflict', { message: 'slug taken' }),
      (call) => apiError(409, 'conflict', { idempotencyKey: call.headers['idempotency-key'] }),
    )
    const qrctl = new Qrctl({ apiKey: API_KEY, fetch })
    await expect(qrctl.qrCodes.create(NEW_CODE, { idempotencyKey: 'mine' })).rejects.toThrow(
      QrctlConflictError,
    )
    await expect(settle(qrctl.qrCodes.create(NEW_CODE))).rejects.toThrow('slug taken')
    // A 409 naming our key but no reason (a server before `reason`) is not known to be safe.
    await expect(qrctl.qrCodes.create(NEW_CODE, { idempotencyKey: 'mine' })).rejects.toThrow(
      QrctlConflictError,
    )
    expect(fetch.calls).toHaveLength(4)
  })
})

describe('lastResponse', () => {
  it('is undefined before the first answer, then follows every answer, retried ones included', async () => {
    const seen: unknown[] = []
    const fetch = fakeFetch(
      apiError(503, 'internal_error', {}, { 'x-request-id': 'r1' }),
      json(201, { data: qrCode() }, { 'x-request-id': 'r2', 'idempotent-replayed': 'true' }),
      json(200, { data: qrCode() }, { 'x-request-id': 'r3' }),
      apiError(404, 'not_found', {}, { 'x-request-id': 'r4' }),
      networkError(),
    )
    const qrctl: Qrctl = new Qrctl({
      apiKey: API_KEY,
      fetch,
      maxRetries: 1,
      onResponse: () => seen.push(qrctl.lastResponse?.status),
    })
    expect(qrctl.lastResponse).toBeUndefined()
    await settle(qrctl.qrCodes.create(NEW_CODE))
    expect(seen).toEqual([503, 201])
    expect(qrctl.lastResponse).toMatchObject({ status: 201, requestId: 'r2', replayed: true })
    expect(qrctl.lastResponse?.headers.get('content-type')).toContain('application/json')
    await qrctl.qrCodes.get(ID)
    expect(qrctl.lastResponse).toMatchObject({ status: 200, requestId: 'r3', replayed: false })
    await expect(qrctl.qrCodes.get(ID)).rejects.toThrow(QrctlNotFoundError)
    expect(qrctl.lastResponse).toMatchObject({ status: 404, requestId: 'r4', replayed: false })
    // No answer, nothing to record: the last one stays.
    await expect(qrctl.qrCodes.get(ID, { maxRetries: 0 })).rejects.toThrow(QrctlConnectionError)
    expect(qrctl.lastResponse?.requestId).toBe('r4')
  })

  it('has no request id when the answer carries none', async () => {
    const fetch = fakeFetch(json(200, { data: qrCode() }))
    const qrctl = new Qrctl({ apiKey: API_KEY, fetch })
    await qrctl.qrCodes.get(ID)
    expect(qrctl.lastResponse).toMatchObject({ status: 200, requestId: undefined, replayed: false })
  })
})

describe('hooks and headers', () => {
  it('reports every answer to onResponse and every retry to onRetry, and tracks X-RateLimit-*', async () => {
    const responses: ResponseEvent[] = []
    const retries: RetryEvent[] = []
    const fetch = fakeFetch(
      apiError(500, 'internal_error', {}, { 'x-request-id': 'r1', ...rateHeaders(5) }),
      json(200, { data: qrCode() }, { 'x-request-id': 'r2', ...rateHeaders(4) }),
    )
    const qrctl = new Qrctl({
      apiKey: API_KEY,
      fetch,
      onResponse: (event) => responses.push(event),
      onRetry: (event) => retries.push(event),
    })
    expect(qrctl.lastRateLimit).toBeUndefined()
    const before = Date.now()
    await settle(qrctl.qrCodes.get(ID))
    expect(responses.map(({ status, attempt, requestId }) => ({ status, attempt, requestId }))).toEqual([
      { status: 500, attempt: 0, requestId: 'r1' },
      { status: 200, attempt: 1, requestId: 'r2' },
    ])
    expect(retries).toHaveLength(1)
    expect(retries[0]).toMatchObject({ method: 'GET', retry: 1, error: expect.any(QrctlServerError) })
    expect(retries[0]?.delayMs).toBeGreaterThanOrEqual(250)
    expect(qrctl.lastRateLimit).toMatchObject({ limit: 100, remaining: 4, reset: 42 })
    expect(qrctl.lastRateLimit?.resetAt.getTime()).toBeGreaterThanOrEqual(before + 42_000)
  })
})
