import { describe, expect, it } from 'vitest'
import { API_KEY, fakeFetch, json, qrCode } from '../test/fake-fetch.js'
import { Qrctl } from './index.js'
import type { QrctlOptions } from './options.js'

describe('new Qrctl(options)', () => {
  it('rejects an unknown option and names the one that was meant', () => {
    const options = { apikey: API_KEY } as unknown as QrctlOptions
    expect(() => new Qrctl(options)).toThrow("Qrctl: unknown option 'apikey' (did you mean 'apiKey'?)")
    const extra = { apiKey: API_KEY, retries: 3 } as unknown as QrctlOptions
    expect(() => new Qrctl(extra)).toThrow("unknown option 'retries'")
  })

  it('rejects a missing key and a key without the qrk_ prefix', () => {
    expect(() => new Qrctl({} as QrctlOptions)).toThrow(/`apiKey` is required/)
    expect(() => new Qrctl({ apiKey: 'sk_live_123' })).toThrow(/must start with 'qrk_'/)
    expect(() => new Qrctl({ apiKey: 'sk_live_123' })).toThrow(TypeError)
  })

  it('rejects a base URL that is not http(s) or is not a URL', () => {
    expect(() => new Qrctl({ apiKey: API_KEY, baseUrl: 'ftp://h' })).toThrow(/http/)
    expect(() => new Qrctl({ apiKey: API_KEY, baseUrl: 'localhost:3000' })).toThrow(/http/)
    expect(() => new Qrctl({ apiKey: API_KEY, baseUrl: 'not a url' })).toThrow(/Not a URL/)
  })

  it('rejects malformed numbers and hooks', () => {
    expect(() => new Qrctl({ apiKey: API_KEY, timeoutMs: 0 })).toThrow(/timeoutMs/)
    expect(() => new Qrctl({ apiKey: API_KEY, maxRetries: -1 })).toThrow(/maxRetries/)
    expect(() => new Qrctl({ apiKey: API_KEY, maxRetries: 1.5 })).toThrow(/maxRetries/)
    const options = { apiKey: API_KEY, fetch: 'no' } as unknown as QrctlOptions
    expect(() => new Qrctl(options)).toThrow(/`fetch` must be a function/)
  })

  it('talks to http://localhost:3000 by default and keeps a base path without a trailing slash', async () => {
    const fetch = fakeFetch(json(200, { data: qrCode() }), json(200, { data: qrCode() }))
    await new Qrctl({ apiKey: API_KEY, fetch }).qrCodes.get('x1')
    await new Qrctl({ apiKey: API_KEY, fetch, baseUrl: 'https://api.example.com/qr/' }).qrCodes.get('x1')
    expect(fetch.calls.map((call) => call.url)).toEqual([
      'http://localhost:3000/api/v1/qr-codes/x1',
      'https://api.example.com/qr/api/v1/qr-codes/x1',
    ])
  })

  it('rejects unknown or malformed per-call options', async () => {
    const qrctl = new Qrctl({ apiKey: API_KEY, fetch: fakeFetch() })
    const options = { retries: 1 } as unknown as { maxRetries: number }
    await expect(qrctl.qrCodes.get('x1', options)).rejects.toThrow("unknown request option 'retries'")
    await expect(qrctl.qrCodes.get('x1', { timeoutMs: 0 })).rejects.toThrow(/timeoutMs/)
    await expect(
      qrctl.qrCodes.create({ name: 'a', contentType: 'text', content: 'a' }, { idempotencyKey: '' }),
    ).rejects.toThrow(/idempotencyKey/)
  })
})
