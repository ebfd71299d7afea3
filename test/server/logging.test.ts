import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, createCode, dynamicCode, textCode } from '../api/helpers.js'
import { captureLogger } from '../support/capture-logger.js'
import { dialects, startServer, type TestServer } from '../support/server.js'

const CLIENT_IP = '203.0.113.77'

describe.each(dialects())('what reaches the logs on %s', (dialect) => {
  let server: TestServer
  const capture = captureLogger()

  beforeAll(async () => {
    server = await startServer({ dialect, logger: capture.logger, env: { TRUST_PROXY: 'on' } })
  })
  afterAll(() => server.close())

  it('logs one line per request with its id, route pattern and status, and never a key or a client address', async () => {
    const from = { headers: { 'x-forwarded-for': CLIENT_IP, 'x-request-id': 'log-test-1' } }
    const client = api(server, server.apiKey)
    const code = await createCode(client, dynamicCode())
    await client.get(`/qr-codes/${code.id}`, from)
    const image = { headers: { ...from.headers, 'x-request-id': 'log-test-image' } }
    await client.get(`/qr-codes/${code.id}/image.png`, image)
    await client.get(`/qr-codes?limit=1&key=${server.apiKey}`, from)
    await client.get('/qr-codes', { ...from, key: `qrk_${'9'.repeat(40)}` })
    await client.get(`/${server.apiKey}`, { ...from, key: null })
    const created = await client.post('/api-keys', { name: 'logged?' }, from)
    await fetch(code.shortUrl as string, {
      redirect: 'manual',
      headers: { 'x-forwarded-for': CLIENT_IP, 'user-agent': 'Mozilla/5.0 (iPhone) Mobile Safari/604.1' },
    })
    await server.running.scans.flush()

    const line = capture.entries.find((e) => e.msg === 'request' && e.fields.requestId === 'log-test-1')
    expect(line?.fields).toMatchObject({
      method: 'GET',
      route: '/api/v1/qr-codes/:id',
      status: 200,
      accountId: server.accountId,
    })
    expect(typeof line?.fields.ms).toBe('number')
    const imageLine = capture.entries.find(
      (e) => e.msg === 'request' && e.fields.requestId === 'log-test-image',
    )
    expect(imageLine?.fields).toMatchObject({
      method: 'GET',
      route: '/api/v1/qr-codes/:id/image.png',
      status: 200,
      accountId: server.accountId,
    })
    const text = capture.text()
    expect(text).not.toContain(server.apiKey.slice(4))
    expect(text).not.toContain(created.body.data.secret.slice(4))
    expect(text).not.toContain(`qrk_${'9'.repeat(40)}`)
    expect(text).not.toContain(CLIENT_IP)
    expect(text).not.toContain('127.0.0.1')
  })

  it('logs a 500 with the same request id the client got, and the client sees no detail', async () => {
    const client = api(server, server.apiKey)
    await server.ctx.db.schema.alterTable('qr_codes').renameTo('qr_codes_away').execute()
    let res: Awaited<ReturnType<typeof client.post>>
    try {
      res = await client.post('/qr-codes', textCode(), { headers: { 'x-forwarded-for': CLIENT_IP } })
    } finally {
      await server.ctx.db.schema.alterTable('qr_codes_away').renameTo('qr_codes').execute()
    }
    expect(res.status).toBe(500)
    const requestId = res.headers.get('x-request-id')
    const logged = capture.entries.find((e) => e.level === 'error' && e.fields.requestId === requestId)
    expect(logged?.msg).toBe('unhandled error')
    expect(logged?.fields.err).toBeInstanceOf(Error)
    expect(capture.text()).not.toContain(server.apiKey.slice(4))
    expect(capture.text()).not.toContain(CLIENT_IP)
  })
})
