import { API_PREFIX } from '@qrctl/contract'
import { describe, expect, it } from 'vitest'
import { fakeFetch, json } from '../test/fake-fetch.js'
import { BaseUrlError, normalizeBaseUrl } from './base-url.js'
import { Qrctl } from './index.js'

describe('normalizeBaseUrl', () => {
  it('keeps the server root: no trailing slash, no /api/v1', () => {
    expect(normalizeBaseUrl('https://qr.example.com/')).toBe('https://qr.example.com')
    expect(normalizeBaseUrl(`https://qr.example.com${API_PREFIX}/`)).toBe('https://qr.example.com')
    expect(normalizeBaseUrl('https://example.com/qr')).toBe('https://example.com/qr')
  })

  it('refuses what cannot be a server root', () => {
    expect(() => normalizeBaseUrl('qr.example.com')).toThrow(BaseUrlError)
    expect(() => normalizeBaseUrl('ftp://qr.example.com')).toThrow('http:// or https://')
    expect(() => normalizeBaseUrl('https://qr.example.com/?x=1')).toThrow('query or fragment')
  })

  it('is the rule the client applies', async () => {
    const fetch = fakeFetch(json(200, { data: [], total: 0, limit: 1, offset: 0 }))
    await new Qrctl({
      apiKey: `qrk_${'a'.repeat(40)}`,
      baseUrl: 'http://h:3000/api/v1/',
      fetch,
    }).qrCodes.list({
      limit: 1,
    })
    expect(fetch.calls[0]?.url).toBe('http://h:3000/api/v1/qr-codes?limit=1')
  })
})
