/**
 * #22.4: the response check every e2e test runs through (support/validate-responses.ts) finds
 * each kind of answer the document does not describe, and passes the ones it does.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Qrctl } from '@qrctl/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Answer, responseProblems } from '../support/openapi-responses.js'
import { takeProblems } from '../support/validate-responses.js'

const ID = '3f2b8c1e-9d4a-4b7e-8c2f-1a6d5e4b3c2a'
const base = 'http://127.0.0.1:3000/api/v1'
const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value))

function headers(extra: Record<string, string> = {}): Headers {
  return new Headers({
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': 'req-1',
    'x-ratelimit-limit': '100',
    'x-ratelimit-remaining': '99',
    'x-ratelimit-reset': '42',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...extra,
  })
}

const notFound: Answer = {
  method: 'GET',
  url: `${base}/qr-codes/${ID}`,
  status: 404,
  headers: headers(),
  body: json({ error: 'not_found', details: { message: 'No such code' } }),
}

describe('the OpenAPI response check', () => {
  it('is installed around fetch for every e2e test', () => {
    expect(globalThis.fetch.name).toBe('checkedFetch')
  })

  it('passes a documented answer', () => {
    expect(responseProblems(notFound)).toEqual([])
    const png = { ...notFound, url: `${base}/qr-codes/${ID}/image.png`, status: 200 }
    const pngHeaders = headers({
      'content-type': 'image/png',
      etag: '"abc"',
      'cache-control': 'private, max-age=60',
    })
    expect(responseProblems({ ...png, headers: pngHeaders, body: new Uint8Array([0x89, 0x50]) })).toEqual([])
  })

  it('refuses an undocumented status', () => {
    expect(responseProblems({ ...notFound, status: 418 })).toEqual([
      expect.stringContaining('status 418 is not documented for getQrCode'),
    ])
  })

  it('refuses an answer missing a required header, or with a header that breaks its schema', () => {
    const without = headers()
    without.delete('x-ratelimit-remaining')
    expect(responseProblems({ ...notFound, headers: without })).toEqual([
      expect.stringContaining('required header X-RateLimit-Remaining is missing'),
    ])
    expect(responseProblems({ ...notFound, headers: headers({ 'x-ratelimit-reset': 'soon' }) })).toEqual([
      expect.stringContaining('header X-RateLimit-Reset: soon'),
    ])
  })

  it('refuses an undocumented content type and a body of the wrong shape', () => {
    expect(responseProblems({ ...notFound, headers: headers({ 'content-type': 'text/html' }) })).toEqual([
      expect.stringContaining('content type text/html is not one of application/json'),
    ])
    expect(responseProblems({ ...notFound, body: json({ error: 'not_found' }) })).toEqual([
      expect.stringContaining("must have required property 'details'"),
    ])
    expect(
      responseProblems({ ...notFound, body: json({ error: 'conflict', details: { message: 'x' } }) }),
    ).toEqual([expect.stringContaining('must be equal to one of the allowed values')])
  })

  it('refuses JSON where an image is documented', () => {
    const answer = { ...notFound, url: `${base}/qr-codes/${ID}/image.png`, status: 200 }
    expect(responseProblems({ ...answer, headers: headers({ etag: '"abc"' }) })).toEqual([
      expect.stringContaining('content type application/json is not one of image/png'),
    ])
  })

  it('holds a route the API does not have to the error body', () => {
    const unknown = { ...notFound, url: `${base}/no-such-route` }
    expect(responseProblems(unknown)).toEqual([])
    expect(responseProblems({ ...unknown, body: json({ message: 'Not found' }) })).toEqual([
      expect.stringContaining("must have required property 'error'"),
    ])
    expect(responseProblems({ ...unknown, status: 200 })).toEqual([
      expect.stringContaining('not in openapi.json'),
    ])
  })

  it('leaves answers outside /api/v1 alone', () => {
    expect(responseProblems({ ...notFound, url: 'http://127.0.0.1:3000/r/aZ3kP9q', status: 302 })).toEqual([])
  })
})

describe('the check around fetch', () => {
  /** A loopback server that answers every request 418 with a JSON body nothing documents. */
  let teapot: Server
  let origin: string
  beforeAll(async () => {
    teapot = createServer((_req, res) => {
      res.writeHead(418, { 'content-type': 'application/json' }).end('{"tea":true}')
    })
    await new Promise<void>((resolve) => teapot.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(teapot.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => teapot.close(() => resolve())))

  it('finds an undocumented answer the tests’ own fetch received', async () => {
    expect((await fetch(`${origin}/api/v1/qr-codes`)).status).toBe(418)
    expect(takeProblems()).toEqual([
      expect.stringContaining('GET /api/v1/qr-codes → 418: status 418 is not documented'),
    ])
  })

  it('finds an undocumented answer the SDK received through undici', async () => {
    const { fetch: undiciFetch } = await import('undici')
    expect(undiciFetch.name).toBe('checkedFetch')
    const sdk = new Qrctl({ baseUrl: origin, apiKey: `qrk_${'a'.repeat(40)}`, maxRetries: 0 })
    await expect(sdk.qrCodes.list()).rejects.toThrow()
    await sdk.close()
    expect(takeProblems()).toEqual([
      expect.stringContaining('GET /api/v1/qr-codes → 418: status 418 is not documented'),
    ])
  })
})
