import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { api, UNLIMITED } from './helpers.js'

describe.each(dialects())('page bounds and optional bodies on %s', (dialect) => {
  let server: TestServer

  beforeAll(async () => {
    server = await startServer({ dialect, env: UNLIMITED })
  })
  afterAll(() => server.close())

  it.each(['/qr-codes', '/showcases'])(
    'refuses an offset past 1000000 on %s with a validation error',
    async (path) => {
      const client = api(server, server.apiKey)
      for (const offset of ['1000001', '1e20']) {
        const res = await client.get(`${path}?offset=${offset}`)
        expect(res.status).toBe(400)
        expect(res.body.error).toBe('validation_error')
        expect(res.body.details.issues).toContainEqual({ path: 'offset', message: 'Must be at most 1000000' })
      }
      expect((await client.get(`${path}?offset=1000000`)).status).toBe(200)
    },
  )

  it('rotates a key with no body at all, as if gracePeriodSeconds were 0', async () => {
    const client = api(server, server.apiKey)
    const created = await client.post('/api-keys', { name: 'rotate me' })
    const res = await fetch(`${server.baseUrl}/api/v1/api-keys/${created.body.data.id}/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}` },
    })
    expect(res.status).toBe(201)
    const old = await fetch(`${server.baseUrl}/api/v1/qr-codes`, {
      headers: { authorization: `Bearer ${created.body.data.secret}` },
    })
    expect(old.status).toBe(401)
  })
})
