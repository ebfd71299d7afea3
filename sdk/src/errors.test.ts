import type { ErrorCode } from '@qrctl/contract'
import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  errorFromResponse,
  parseRetryAfter,
  QrctlApiError,
  QrctlAuthenticationError,
  QrctlConflictError,
  QrctlError,
  QrctlNotFoundError,
  QrctlPermissionError,
  QrctlRateLimitError,
  QrctlServerError,
  QrctlUnscannableError,
  QrctlValidationError,
} from './errors.js'

const headers = (values: Record<string, string> = {}) => new Headers({ 'x-request-id': 'req_1', ...values })
const body = (error: string, details: Record<string, unknown> = {}) => ({
  error,
  details: { message: `${error}!`, ...details },
})

describe('errorFromResponse', () => {
  it.each([
    [400, 'validation_error', QrctlValidationError],
    [400, 'invalid_json', QrctlValidationError],
    [400, 'unscannable', QrctlUnscannableError],
    [401, 'unauthorized', QrctlAuthenticationError],
    [403, 'plan_required', QrctlPermissionError],
    [403, 'insufficient_scope', QrctlPermissionError],
    [404, 'not_found', QrctlNotFoundError],
    [409, 'conflict', QrctlConflictError],
    [413, 'payload_too_large', QrctlApiError],
    [415, 'unsupported_media_type', QrctlApiError],
    [429, 'rate_limited', QrctlRateLimitError],
    [500, 'internal_error', QrctlServerError],
  ])('maps %i %s to %O', (status, code, errorClass) => {
    const error = errorFromResponse(status, body(code), headers())
    expect(error).toBeInstanceOf(errorClass)
    expect(error).toBeInstanceOf(QrctlApiError)
    expect(error).toBeInstanceOf(QrctlError)
    expect(error).toBeInstanceOf(Error)
    expect(error).toMatchObject({
      status,
      code,
      message: `${code}!`,
      requestId: 'req_1',
      name: errorClass.name,
    })
  })

  it('keeps the checks of an unscannable design, and is a validation error too', () => {
    const checks = [
      { size: 256, decoder: 'jsqr', ok: false },
      { size: 1024, decoder: 'zxing-cpp', ok: true },
    ]
    const error = errorFromResponse(400, body('unscannable', { checks }), headers())
    expect(error).toBeInstanceOf(QrctlValidationError)
    expect((error as QrctlUnscannableError).checks).toEqual(checks)
  })

  it('keeps the validation issues', () => {
    const issues = [{ path: 'targetUrl', message: 'Must be an absolute http:// or https:// URL' }]
    const error = errorFromResponse(400, body('validation_error', { issues }), headers())
    expect(error).toBeInstanceOf(QrctlValidationError)
    expect((error as QrctlValidationError).issues).toEqual(issues)
    expect(error.details.issues).toEqual(issues)
  })

  it('reads retryAfter from details, else from Retry-After', () => {
    const fromBody = errorFromResponse(
      429,
      body('rate_limited', { retryAfter: 12 }),
      headers({ 'retry-after': '3' }),
    )
    expect((fromBody as QrctlRateLimitError).retryAfter).toBe(12)
    const fromHeader = errorFromResponse(429, body('rate_limited'), headers({ 'retry-after': '7' }))
    expect((fromHeader as QrctlRateLimitError).retryAfter).toBe(7)
  })

  it('still gives a useful error for a body that is not an error body', () => {
    const html = errorFromResponse(502, '<html>Bad gateway</html>', new Headers())
    expect(html).toBeInstanceOf(QrctlServerError)
    expect(html).toMatchObject({
      status: 502,
      code: 'internal_error',
      message: 'HTTP 502',
      requestId: undefined,
    })
    const empty = errorFromResponse(418, undefined, new Headers())
    expect(empty).toMatchObject({ status: 418, code: 'http_error', message: 'HTTP 418' })
    const noMessage = errorFromResponse(404, { error: 'not_found' }, new Headers())
    expect(noMessage).toMatchObject({ code: 'not_found', message: 'HTTP 404' })
    // A body shaped like ours whose code the contract does not name: not passed off as one of ours.
    const foreign = errorFromResponse(
      400,
      { error: 'teapot', details: { message: 'short and stout' } },
      new Headers(),
    )
    expect(foreign).toMatchObject({ status: 400, code: 'http_error', message: 'short and stout' })
    const foreign5xx = errorFromResponse(503, body('unavailable'), new Headers())
    expect(foreign5xx).toBeInstanceOf(QrctlServerError)
    expect(foreign5xx).toMatchObject({ status: 503, code: 'internal_error', message: 'unavailable!' })
  })

  it("types code as the contract's error codes", () => {
    const error = errorFromResponse(404, body('not_found'), new Headers())
    expectTypeOf(error.code).toEqualTypeOf<ErrorCode | 'http_error'>()
    expect(error.code).toBe('not_found')
  })
})

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfter('30')).toBe(30)
    expect(parseRetryAfter(null)).toBeUndefined()
    expect(parseRetryAfter('soon')).toBeUndefined()
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:20 GMT', now)).toBe(20)
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0)
  })
})
