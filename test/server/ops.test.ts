import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, createCode, type Json } from '../api/helpers.js'
import { dialects, startServer, type TestServer } from '../support/server.js'

const require = createRequire(import.meta.url)
const committedOpenApi = JSON.parse(readFileSync(require.resolve('@qrctl/contract/openapi.json'), 'utf8'))

describe.each(dialects())('operational routes on %s', (dialect) => {
  let server: TestServer

  beforeAll(async () => {
    server = await startServer({ dialect, env: { PUBLIC_BASE_URL: 'https://api.qrctl.example' } })
  })
  afterAll(() => server.close())

  const get = (path: string, init?: RequestInit) => fetch(`${server.baseUrl}${path}`, init)

  it('answers /healthz with 200 and no key', async () => {
    const res = await get('/healthz')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ok' })
  })

  it('answers /readyz with 200 once the database answers', async () => {
    const res = await get('/readyz')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ready' })
  })

  it('serves Prometheus metrics with request durations labelled by route pattern, never by id', async () => {
    const client = api(server, server.apiKey)
    const code = await createCode(client)
    await client.get(`/qr-codes/${code.id}`)
    const res = await get('/metrics')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = await res.text()
    expect(text).toContain('# TYPE qrctl_http_request_duration_seconds histogram')
    expect(text).toMatch(
      /qrctl_http_request_duration_seconds_count\{[^}]*route="\/api\/v1\/qr-codes\/:id"[^}]*\} \d+/,
    )
    expect(text).toContain('process_cpu_user_seconds_total')
    expect(text).not.toContain(code.id)
    expect(text).not.toContain(server.apiKey)
  })

  it('serves GET /api/v1/openapi.json without a key: the committed document, with this server as its server', async () => {
    const res = await get('/api/v1/openapi.json')
    expect(res.status).toBe(200)
    const served: Json = await res.json()
    expect(served.servers).toEqual([{ url: 'https://api.qrctl.example' }])
    expect({ ...served, servers: undefined }).toEqual({ ...committedOpenApi, servers: undefined })
    expect(served.info.version).toBe('1.1.0')
  })

  it('serves /docs as an HTML page whose scripts and stylesheets all come from this server', async () => {
    const res = await get('/docs/')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    const html = await res.text()
    expect(html).toContain('<title>qrctl API reference</title>')
    const refs = [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)"/g)].map(
      (m) => m[1] as string,
    )
    expect(refs.length).toBeGreaterThanOrEqual(3)
    const pageUrl = new URL('/docs/', server.baseUrl)
    for (const ref of refs) {
      const url = new URL(ref, pageUrl)
      expect(url.origin, ref).toBe(pageUrl.origin)
      const asset = await fetch(url)
      expect(asset.status, ref).toBe(200)
      expect((await asset.arrayBuffer()).byteLength, ref).toBeGreaterThan(0)
    }
    expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[^"' ]*\.(?:js|css)/)
    const init = await (await fetch(new URL('swagger-ui-init.js', pageUrl))).text()
    expect(init).toContain('qrctl API')
  })

  it('redirects /docs to /docs/ so relative asset paths resolve', async () => {
    const res = await get('/docs', { redirect: 'manual' })
    expect([200, 301, 302, 308]).toContain(res.status)
    if (res.status !== 200) expect(res.headers.get('location')).toMatch(/\/docs\/$/)
  })
})
