import { afterEach, describe, expect, it, vi } from 'vitest'
import { API_KEY, fakeFetch, ID, json, qrCode } from '../test/fake-fetch.js'
import { Qrctl } from './index.js'
import type { QrctlOptions } from './options.js'

const TOKEN = 'Xq3v9_csrf-token.1'

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('new Qrctl({ csrfToken }) (session mode, DESIGN §19)', () => {
  it('takes exactly one of apiKey and csrfToken, with a TypeError that says which', () => {
    const both = { apiKey: API_KEY, csrfToken: TOKEN } as unknown as QrctlOptions
    expect(() => new Qrctl(both)).toThrow(TypeError)
    expect(() => new Qrctl(both)).toThrow(/`apiKey`.*or `csrfToken`.*not both/)
    expect(() => new Qrctl({} as QrctlOptions)).toThrow(/`apiKey` is required.*`csrfToken`/)
    expect(() => new Qrctl({ csrfToken: '' })).toThrow(/`csrfToken` must be the page's token/)
    expect(() => new Qrctl({ csrfToken: 'two words' })).toThrow(TypeError)
    expect(() => new Qrctl({ csrfToken: 42 } as unknown as QrctlOptions)).toThrow(/csrfToken/)
  })

  it('sends the token as X-CSRF-Token with the cookie (same-origin) and no Authorization', async () => {
    const inits: RequestInit[] = []
    const fetch = fakeFetch(json(200, { data: qrCode() }))
    const qrctl = new Qrctl({
      baseUrl: 'https://qr.example.com',
      csrfToken: TOKEN,
      fetch: (url, init) => {
        inits.push(init)
        return fetch(url, init)
      },
    })
    await qrctl.qrCodes.get(ID)
    const [call] = fetch.calls
    expect(call?.url).toBe(`https://qr.example.com/api/v1/qr-codes/${ID}`)
    expect(call?.headers['x-csrf-token']).toBe(TOKEN)
    expect(call?.headers).not.toHaveProperty('authorization')
    expect(inits[0]?.credentials).toBe('same-origin')
  })

  it("uses the page's fetch (not undici) and origin by default", async () => {
    const fetch = fakeFetch(json(201, { data: qrCode() }))
    vi.stubGlobal('fetch', fetch)
    vi.stubGlobal('location', { origin: 'http://127.0.0.1:4321' })
    const qrctl = new Qrctl({ csrfToken: TOKEN })
    expect(qrctl.baseUrl).toBe('http://127.0.0.1:4321')
    await qrctl.qrCodes.create({ name: 'Menu', contentType: 'url', content: 'https://example.com/menu' })
    const [call] = fetch.calls
    expect(call).toMatchObject({ method: 'POST', url: 'http://127.0.0.1:4321/api/v1/qr-codes' })
    expect(call?.headers['x-csrf-token']).toBe(TOKEN)
    // Retries are on, so a POST carries an idempotency key, made without node:crypto.
    expect(call?.headers['idempotency-key']).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    )
    await qrctl.close()
  })

  it('keeps key mode as it was: Bearer key, no token, no credentials option', async () => {
    const inits: RequestInit[] = []
    const fetch = fakeFetch(json(200, { data: qrCode() }))
    const qrctl = new Qrctl({
      apiKey: API_KEY,
      fetch: (url, init) => {
        inits.push(init)
        return fetch(url, init)
      },
    })
    expect(qrctl.baseUrl).toBe('http://localhost:3000')
    await qrctl.qrCodes.get(ID)
    expect(fetch.calls[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`)
    expect(fetch.calls[0]?.headers).not.toHaveProperty('x-csrf-token')
    expect(inits[0]).not.toHaveProperty('credentials')
  })
})
