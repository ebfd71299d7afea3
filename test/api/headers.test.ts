/**
 * DESIGN §10: every /api/v1 answer carries `X-Content-Type-Options: nosniff` and
 * `Cache-Control: no-store`, whichever path wrote it (Express, the fast image path, the error
 * handler, the gate's 401 and 429); /docs is served with a Content-Security-Policy and
 * `X-Frame-Options: DENY`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { type Api, type ApiResponse, api, createCode, dynamicCode, textCode, UNLIMITED } from './helpers.js'

function expectApiHeaders(res: ApiResponse | Response, what: string): void {
  expect(res.headers.get('x-content-type-options'), what).toBe('nosniff')
  expect(res.headers.get('cache-control'), what).toBe('no-store')
  expect(res.headers.get('x-request-id'), what).toBeTruthy()
}

describe.each(dialects())('API answer headers on %s', (dialect) => {
  let server: TestServer
  let client: Api

  beforeAll(async () => {
    server = await startServer({ dialect, env: UNLIMITED })
    client = api(server, server.apiKey)
  })
  afterAll(() => server.close())

  it('puts nosniff and no-store on successes, including the answer holding a new key’s secret', async () => {
    const code = await createCode(client, textCode())
    const answers: [string, ApiResponse][] = [
      ['list', await client.get('/qr-codes')],
      ['get', await client.get(`/qr-codes/${code.id}`)],
      ['create', await client.post('/qr-codes', textCode())],
      ['patch', await client.patch(`/qr-codes/${code.id}`, { name: 'renamed' })],
      ['analytics', await client.get(`/qr-codes/${code.id}/analytics`)],
      ['new key', await client.post('/api-keys', { name: 'secret holder' })],
      ['batch', await client.post('/qr-codes/batch', { codes: [textCode()] })],
      ['delete', await client.delete(`/qr-codes/${code.id}`)],
    ]
    for (const [what, res] of answers) {
      expect(res.status, what).toBeLessThan(300)
      expectApiHeaders(res, what)
    }
    expect(answers[5]?.[1].body.data.secret).toMatch(/^qrk_/)
  })

  it('puts them on every error: 400, 401, 403, 404, 415 and an unknown route', async () => {
    const readOnly = api(server, (await server.createAccount({ scope: 'read' })).apiKey)
    const answers: [string, number, ApiResponse][] = [
      ['invalid', 400, await client.post('/qr-codes', { name: '' })],
      [
        'invalid json',
        400,
        await client.request('POST', '/qr-codes', {
          raw: '{',
          headers: { 'content-type': 'application/json' },
        }),
      ],
      ['no key', 401, await client.get('/qr-codes', { key: null })],
      ['bad key', 401, await client.get('/qr-codes', { key: `qrk_${'0'.repeat(40)}` })],
      ['scope', 403, await readOnly.post('/qr-codes', textCode())],
      ['missing', 404, await client.get('/qr-codes/00000000-0000-4000-8000-000000000000')],
      ['no route', 404, await client.get('/nowhere')],
      [
        'not json',
        415,
        await client.request('POST', '/qr-codes', { raw: 'x', headers: { 'content-type': 'text/plain' } }),
      ],
    ]
    for (const [what, status, res] of answers) {
      expect(res.status, what).toBe(status)
      expectApiHeaders(res, what)
    }
  })

  it('puts them on images from the fast path and from Express, and keeps ETag/304 working', async () => {
    const code = await createCode(client, dynamicCode())
    const url = `${server.baseUrl}/api/v1/qr-codes/${code.id}/image.png`
    const headers = { authorization: `Bearer ${server.apiKey}` }
    const get = await fetch(url, { headers })
    expect(get.status).toBe(200)
    await get.arrayBuffer()
    expectApiHeaders(get, 'fast path 200')
    const etag = get.headers.get('etag') as string
    expect(etag).toMatch(/^"/)
    const notModified = await fetch(url, { headers: { ...headers, 'if-none-match': etag } })
    expect(notModified.status).toBe(304)
    expect(notModified.headers.get('etag')).toBe(etag)
    expectApiHeaders(notModified, 'fast path 304')
    const head = await fetch(url, { headers, method: 'HEAD' })
    expect(head.status).toBe(200)
    expectApiHeaders(head, 'Express HEAD')
    const headNotModified = await fetch(url, {
      headers: { ...headers, 'if-none-match': etag },
      method: 'HEAD',
    })
    expect(headNotModified.status).toBe(304)
    expectApiHeaders(headNotModified, 'Express 304')
    const badQuery = await fetch(`${url}?size=1`, { headers })
    expect(badQuery.status).toBe(400)
    expectApiHeaders(badQuery, 'image 400 (handed to Express)')
    const noKey = await fetch(url)
    expect(noKey.status).toBe(401)
    expectApiHeaders(noKey, 'image 401')
  })

  it('puts them on a 429', async () => {
    const limited = api(server, (await server.createAccount({ rateLimitPerMinute: 1 })).apiKey)
    expect((await limited.get('/qr-codes')).status).toBe(200)
    const res = await limited.get('/qr-codes')
    expect(res.status).toBe(429)
    expectApiHeaders(res, '429')
    const code = await createCode(client, dynamicCode())
    const image = await limited.get(`/qr-codes/${code.id}/image.svg`)
    expect(image.status).toBe(429)
    expectApiHeaders(image, 'image 429')
  })

  it('serves /docs with a Content-Security-Policy and X-Frame-Options: DENY', async () => {
    for (const path of ['/docs/', '/docs/swagger-ui-init.js']) {
      const res = await fetch(`${server.baseUrl}${path}`)
      expect(res.status, path).toBe(200)
      await res.text()
      expect(res.headers.get('x-frame-options'), path).toBe('DENY')
      const csp = res.headers.get('content-security-policy') ?? ''
      expect(csp, path).toContain("script-src 'self'")
      expect(csp, path).toContain("frame-ancestors 'none'")
      expect(csp, path).not.toContain("'unsafe-eval'")
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff')
    }
  })
})
