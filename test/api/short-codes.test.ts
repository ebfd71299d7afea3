/**
 * Short codes are 7 random base62 characters, so a collision never happens by chance in a test:
 * these tests hand the server a generator that repeats itself, to show that a clash with a
 * stored code, a clash inside one batch and a clash between two requests at once are all
 * retried rather than refused.
 */
import { randomIds } from '@qrctl/server'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { type Api, type ApiResponse, api, dynamicCode, UNLIMITED } from './helpers.js'

describe.each(dialects())('short-code collisions on %s', (dialect) => {
  let server: TestServer
  let client: Api
  /** The short codes the server draws next; random once they run out. */
  const next: string[] = []
  let drawn = 0

  beforeAll(async () => {
    const shortCode = () => {
      drawn++
      return next.shift() ?? randomIds.shortCode()
    }
    server = await startServer({ dialect, env: UNLIMITED, ids: { ...randomIds, shortCode } })
    client = api(server, server.apiKey)
  })
  afterAll(() => server.close())
  beforeEach(() => {
    next.length = 0
    drawn = 0
  })

  const shortCodeOf = (res: ApiResponse) => {
    expect(res.status, res.text).toBe(201)
    return res.body.data.shortCode as string
  }

  it('draws again when the code is already taken', async () => {
    next.push('AAAAAAA')
    expect(shortCodeOf(await client.post('/qr-codes', dynamicCode()))).toBe('AAAAAAA')
    next.push('AAAAAAA', 'AAAAAAA', 'BBBBBBB')
    drawn = 0
    expect(shortCodeOf(await client.post('/qr-codes', dynamicCode()))).toBe('BBBBBBB')
    expect(drawn).toBe(3)
  })

  it('draws again for a code drawn twice inside one batch', async () => {
    next.push('CCCCCCC', 'CCCCCCC', 'DDDDDDD')
    const res = await client.post('/qr-codes/batch', { codes: [dynamicCode(), dynamicCode({ name: 'two' })] })
    expect(res.status, res.text).toBe(201)
    expect(res.body.data.items.map((c: { shortCode: string }) => c.shortCode)).toEqual(['CCCCCCC', 'DDDDDDD'])
  })

  it('gives two creates at once that drew the same code two different codes', async () => {
    next.push('EEEEEEE', 'EEEEEEE')
    const [a, b] = await Promise.all([
      client.post('/qr-codes', dynamicCode({ name: 'a' })),
      client.post('/qr-codes', dynamicCode({ name: 'b' })),
    ])
    const codes = [shortCodeOf(a), shortCodeOf(b)]
    expect(codes).toContain('EEEEEEE')
    expect(new Set(codes).size).toBe(2)
    for (const code of codes)
      expect((await fetch(`${server.baseUrl}/r/${code}`, { redirect: 'manual' })).status).toBe(302)
  })
})
