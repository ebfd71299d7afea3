import { ManualClock } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { api, textCode, UNLIMITED } from './helpers.js'

describe.each(dialects())('an Idempotency-Key left pending by a dead process on %s', (dialect) => {
  const clock = new ManualClock(new Date('2026-11-21T12:00:00Z'))
  let server: TestServer

  beforeAll(async () => {
    server = await startServer({ dialect, clock, env: UNLIMITED })
  })
  afterAll(() => server.close())

  async function leavePending(key: string, body: unknown) {
    const client = api(server, server.apiKey)
    const first = await client.post('/qr-codes', body, { headers: { 'idempotency-key': key } })
    expect(first.status).toBe(201)
    // What a process that died between the insert and its answer leaves behind.
    await server.ctx.db
      .updateTable('idempotency_keys')
      .set({ status: null, response_body: null })
      .where('key', '=', key)
      .execute()
    return client
  }

  it('answers 409 in_progress while the request could still be running', async () => {
    const body = textCode({ name: 'pending' })
    const client = await leavePending('pending-key', body)
    clock.advance(59_000)
    const res = await client.post('/qr-codes', body, { headers: { 'idempotency-key': 'pending-key' } })
    expect(res.status).toBe(409)
    expect(res.body.details).toMatchObject({ reason: 'in_progress', idempotencyKey: 'pending-key' })
  })

  it('runs the request again once the pending entry is a minute old', async () => {
    const body = textCode({ name: 'abandoned' })
    const client = await leavePending('abandoned-key', body)
    clock.advance(61_000)
    const retry = await client.post('/qr-codes', body, { headers: { 'idempotency-key': 'abandoned-key' } })
    expect(retry.status).toBe(201)
    const replay = await client.post('/qr-codes', body, { headers: { 'idempotency-key': 'abandoned-key' } })
    expect(replay.status).toBe(201)
    expect(replay.body.data.id).toBe(retry.body.data.id)
  })
})
