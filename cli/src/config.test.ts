import { describe, expect, it } from 'vitest'
import { maskKey, normalizeBaseUrl, resolveSettings, xdgDir } from './config.js'

const KEY_FILE = `qrk_${'f'.repeat(40)}`
const KEY_ENV = `qrk_${'e'.repeat(40)}`
const file = { profiles: { default: { apiKey: KEY_FILE, baseUrl: 'http://file.example' }, other: {} } }

describe('resolveSettings', () => {
  it('takes the flag over the environment over the file over the default', () => {
    const env = { QRCTL_BASE_URL: 'http://env.example', QRCTL_API_KEY: KEY_ENV }
    expect(
      resolveSettings({ profile: 'default', flags: { baseUrl: 'http://flag.example' }, env, file }),
    ).toEqual({
      profile: 'default',
      baseUrl: { value: 'http://flag.example', source: 'flag' },
      apiKey: { value: KEY_ENV, source: 'env' },
    })
    expect(resolveSettings({ profile: 'default', flags: {}, env, file }).baseUrl.source).toBe('env')
    expect(resolveSettings({ profile: 'default', flags: {}, env: {}, file })).toMatchObject({
      baseUrl: { value: 'http://file.example', source: 'file' },
      apiKey: { value: KEY_FILE, source: 'file' },
    })
    expect(resolveSettings({ profile: 'other', flags: {}, env: {}, file })).toMatchObject({
      baseUrl: { value: 'http://localhost:3000', source: 'default' },
      apiKey: undefined,
    })
  })
})

describe('normalizeBaseUrl', () => {
  it('keeps the server root: no trailing slash, no /api/v1', () => {
    expect(normalizeBaseUrl('https://qr.example.com/')).toBe('https://qr.example.com')
    expect(normalizeBaseUrl('https://qr.example.com/api/v1/')).toBe('https://qr.example.com')
    expect(normalizeBaseUrl('https://example.com/qr')).toBe('https://example.com/qr')
  })

  it('refuses what is not an http(s) server root', () => {
    expect(() => normalizeBaseUrl('qr.example.com')).toThrow('Not a URL')
    expect(() => normalizeBaseUrl('ftp://qr.example.com')).toThrow('http:// or https://')
    expect(() => normalizeBaseUrl('https://qr.example.com/?x=1')).toThrow('query or fragment')
  })
})

it('masks a key to its first 8 and last 4 characters', () => {
  expect(maskKey('qrk_abcdefghijklmnopqrstuvwxyz0123456789ABCD')).toBe('qrk_abcd…ABCD')
  expect(maskKey('short')).toBe('****')
})

it('ignores a relative XDG directory, as the XDG spec says', () => {
  expect(xdgDir({ XDG_CONFIG_HOME: 'relative', HOME: '/home/u' }, 'XDG_CONFIG_HOME', '.config')).toBe(
    '/home/u/.config',
  )
  expect(xdgDir({ XDG_CONFIG_HOME: '/x', HOME: '/home/u' }, 'XDG_CONFIG_HOME', '.config')).toBe('/x')
})
