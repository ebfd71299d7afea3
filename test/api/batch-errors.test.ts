import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from '../support/server.js'
import { api, UNLIMITED } from './helpers.js'

describe('batch error strings', () => {
  let server: TestServer

  beforeAll(async () => {
    server = await startServer({ env: UNLIMITED })
  })
  afterAll(() => server.close())

  it('answers one string per failed item, naming each of its problems once', async () => {
    const client = api(server, server.apiKey)
    const codes = [
      { name: '', contentType: 'text', content: '' },
      { name: 'fine', contentType: 'text', content: 'fine' },
      { name: 'x', contentType: 'text', content: 'x', target_url: 'https://example.com' },
    ]
    const res = await client.post('/qr-codes/batch', { codes })
    expect(res.status).toBe(201)
    expect(res.body.data.created).toBe(1)
    expect(res.body.data.errors).toEqual([
      'codes[0].name: Must not be empty; codes[0].content: Must not be empty',
      "codes[2]: Unknown field 'target_url': did you mean 'targetUrl'?",
    ])
  })
})
