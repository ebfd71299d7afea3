/**
 * Images are answered ahead of Express (server/src/http/image-path.ts), with the
 * key, the code and the rendering kept in memory. These tests hold that path to the rest of
 * the API: the same headers as Express gives, the same rate-limit window, and every change
 * (a revoked key, a deleted or edited code, a plan change) seen by the very next request,
 * however warm the caches were.
 */
import { request } from 'node:http'
import type { QrCode } from '@qrctl/contract'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import {
  type Api,
  api,
  createCode,
  decodePng,
  dynamicCode,
  expectError,
  fetchBytes,
  UNLIMITED,
} from './helpers.js'

describe.each(dialects())('the image path on %s', (dialect) => {
  let server: TestServer

  beforeAll(async () => {
    server = await startServer({ dialect, env: UNLIMITED })
  })
  afterAll(() => server.close())

  const imageUrl = (code: QrCode, format = 'png', query = '') =>
    `${server.baseUrl}/api/v1/qr-codes/${code.id}/image.${format}${query}`

  async function freshClient(opts: Parameters<TestServer['createAccount']>[0] = {}): Promise<Api> {
    return api(server, (await server.createAccount(opts)).apiKey)
  }

  /** Fetches twice, so the key, the code and the image are all in memory before what follows. */
  async function warm(client: Api, code: QrCode, format = 'png'): Promise<void> {
    for (let i = 0; i < 2; i++) expect((await fetchBytes(client, imageUrl(code, format))).status).toBe(200)
  }

  it('answers GET with the headers Express gives the same request as HEAD', async () => {
    const client = await freshClient()
    const code = await createCode(client, dynamicCode({ name: 'Café menu' }))
    for (const [format, query] of [
      ['png', ''],
      ['png', '?size=300&download=1'],
      ['svg', '?download=true'],
      ['pdf', ''],
    ] as const) {
      const url = imageUrl(code, format, query)
      const init = { headers: { authorization: `Bearer ${client.key}` } }
      const get = await fetch(url, init)
      const body = Buffer.from(await get.arrayBuffer())
      const head = await fetch(url, { ...init, method: 'HEAD' })
      expect(get.status).toBe(200)
      expect(head.status).toBe(200)
      // What may differ: the date, the request id, the count left, the whole seconds left in
      // the window (a cold PDF render can cross a second), and the connection's own headers.
      const varying = new Set([
        'date',
        'x-request-id',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'connection',
        'keep-alive',
      ])
      const shared = (res: Response) => [...res.headers].filter(([name]) => !varying.has(name))
      expect(shared(get)).toEqual(shared(head))
      expect(Number(get.headers.get('content-length'))).toBe(body.length)
      expect(Number(get.headers.get('x-ratelimit-remaining')) - 1).toBe(
        Number(head.headers.get('x-ratelimit-remaining')),
      )
      const reset = (res: Response) => Number(res.headers.get('x-ratelimit-reset'))
      expect(reset(head)).toBeGreaterThanOrEqual(1)
      expect(reset(head)).toBeLessThanOrEqual(reset(get))
      expect(get.headers.get('cache-control')).toBe('no-store')
      expect(get.headers.get('x-content-type-options')).toBe('nosniff')
    }
  })

  it('treats a GET with a body as the rest of the API does (415 unless it is JSON)', async () => {
    const client = await freshClient()
    const code = await createCode(client)
    // fetch() refuses a GET with a body; node:http sends one.
    const getWithBody = (url: string, contentType: string, body: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(url, {
          method: 'GET',
          headers: {
            authorization: `Bearer ${client.key}`,
            'content-type': contentType,
            'content-length': String(Buffer.byteLength(body)),
          },
        })
        req.on('response', (res) => {
          let text = ''
          res.setEncoding('latin1')
          res.on('data', (chunk: string) => {
            text += chunk
          })
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
        })
        req.on('error', reject)
        req.end(body)
      })
    const image = await getWithBody(imageUrl(code), 'text/plain', 'hello')
    const json = await getWithBody(`${server.baseUrl}/api/v1/qr-codes/${code.id}`, 'text/plain', 'hello')
    expect([image.status, json.status]).toEqual([415, 415])
    expect(JSON.parse(image.body).error).toBe('unsupported_media_type')
    expect((await getWithBody(imageUrl(code), 'application/json', '{}')).status).toBe(200)
  })

  it('sees a revoked key at once', async () => {
    const owner = await freshClient()
    const code = await createCode(owner)
    const created = await owner.post('/api-keys', { name: 'for images', scope: 'read' })
    const reader = api(server, created.body.data.secret)
    await warm(reader, code)
    expect((await owner.delete(`/api-keys/${created.body.data.id}`)).status).toBe(200)
    const res = await reader.get(imageUrl(code))
    expectError(res, 401, 'unauthorized')
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="qrctl"')
  })

  it('sees a rotated key without grace at once', async () => {
    const owner = await freshClient()
    const code = await createCode(owner)
    const created = await owner.post('/api-keys', { name: 'rotating', scope: 'read' })
    const old = api(server, created.body.data.secret)
    await warm(old, code)
    const rotated = await owner.post(`/api-keys/${created.body.data.id}/rotate`, { gracePeriodSeconds: 0 })
    expect(rotated.status, rotated.text).toBe(201)
    expectError(await old.get(imageUrl(code)), 401, 'unauthorized')
    expect((await fetchBytes(api(server, rotated.body.data.secret), imageUrl(code))).status).toBe(200)
  })

  it('sees a deleted code at once, and a restored one again', async () => {
    const client = await freshClient()
    const code = await createCode(client)
    await warm(client, code, 'svg')
    expect((await client.delete(`/qr-codes/${code.id}`)).status).toBe(200)
    expectError(await client.get(imageUrl(code, 'svg')), 404, 'not_found')
    expect((await client.post(`/qr-codes/${code.id}/restore`)).status).toBe(200)
    expect((await fetchBytes(client, imageUrl(code, 'svg'))).status).toBe(200)
  })

  it('draws an edited code at once, and its old ETag no longer matches', async () => {
    const client = await freshClient()
    const code = await createCode(client, { name: 'edited', contentType: 'text', content: 'before' })
    await warm(client, code)
    const before = await fetchBytes(client, imageUrl(code))
    expect(decodePng(before.bytes)).toBe('before')
    expect((await client.patch(`/qr-codes/${code.id}`, { content: 'after' })).status).toBe(200)
    const after = await fetchBytes(client, imageUrl(code), {
      'if-none-match': before.headers.get('etag') ?? '',
    })
    expect(after.status).toBe(200)
    expect(decodePng(after.bytes)).toBe('after')
  })

  it('draws a restyled code at once: same payload, new ETag (ETags are kept per code record)', async () => {
    const client = await freshClient()
    const code = await createCode(client, dynamicCode({ name: 'restyled' }))
    await warm(client, code)
    const before = await fetchBytes(client, imageUrl(code))
    const again = await fetchBytes(client, imageUrl(code), {
      'if-none-match': before.headers.get('etag') ?? '',
    })
    expect(again.status).toBe(304)
    const patched = await client.patch(`/qr-codes/${code.id}`, { style: { foregroundColor: '#123456' } })
    expect(patched.status).toBe(200)
    const after = await fetchBytes(client, imageUrl(code), {
      'if-none-match': before.headers.get('etag') ?? '',
    })
    expect(after.status).toBe(200)
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'))
    expect(Buffer.compare(after.bytes, before.bytes)).not.toBe(0)
    expect(decodePng(after.bytes)).toBe(code.shortUrl)
  })

  it('sees a plan change at once', async () => {
    const { accountId, apiKey } = await server.createAccount()
    const client = api(server, apiKey)
    const code = await createCode(client)
    await warm(client, code)
    await server.ctx.db
      .updateTable('accounts')
      .set({ subscription_status: 'canceled' })
      .where('id', '=', accountId)
      .execute()
    expectError(await client.get(imageUrl(code)), 403, 'plan_required')
  })

  it('keeps another account’s code out, however warm', async () => {
    const owner = await freshClient()
    const code = await createCode(owner)
    await warm(owner, code)
    expectError(await (await freshClient()).get(imageUrl(code)), 404, 'not_found')
  })

  it('answers a write-only key 403 and a read key 200', async () => {
    const owner = await freshClient()
    const code = await createCode(owner)
    const writeOnly = (await owner.post('/api-keys', { name: 'w', scope: 'write' })).body.data.secret
    const readOnly = (await owner.post('/api-keys', { name: 'r', scope: 'read' })).body.data.secret
    expectError(await api(server, writeOnly).get(imageUrl(code)), 403, 'insufficient_scope')
    expect((await fetchBytes(api(server, readOnly), imageUrl(code))).status).toBe(200)
  })

  it('shares the rate-limit window with the rest of the API, and answers 429 with Retry-After', async () => {
    const client = await freshClient({ rateLimitPerMinute: 4 })
    const code = await createCode(client)
    const remaining = []
    for (const url of [imageUrl(code), `/qr-codes/${code.id}`, imageUrl(code, 'svg')]) {
      const res = await client.get(url)
      expect(res.status).toBe(200)
      remaining.push(res.headers.get('x-ratelimit-remaining'))
    }
    expect(remaining).toEqual(['2', '1', '0'])
    const limited = await client.get(imageUrl(code))
    expectError(limited, 429, 'rate_limited')
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0')
    expect(limited.body.details.requestId).toBe(limited.headers.get('x-request-id'))
  })

  it('counts image requests in the request metrics under their route pattern', async () => {
    const client = await freshClient()
    const code = await createCode(client)
    const first = await fetchBytes(client, imageUrl(code, 'pdf'))
    await fetchBytes(client, imageUrl(code, 'pdf'), { 'if-none-match': first.headers.get('etag') ?? '' })
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text()
    for (const status of ['200', '304'])
      expect(metrics).toMatch(
        new RegExp(
          `qrctl_http_request_duration_seconds_count\\{method="GET",route="/api/v1/qr-codes/:id/image.pdf",status="${status}"\\} [1-9]`,
        ),
      )
  })
})
