import type { WebhookDelivery } from '@qrctl/contract'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Api, api, expectError } from '../api/helpers.js'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { type Receiver, startReceiver } from './receiver.js'

/**
 * Issue #18.5: destinations are checked when saved and again, by the address actually
 * connected to, at every attempt. Here nothing a receiver listens on is allowed
 * (WEBHOOK_ALLOW_HOSTS names an unused loopback address), so every request below must be
 * refused before a byte is sent. Only loopback addresses and `localhost` appear.
 */
describe.each(dialects())('webhook destinations on %s', (dialect) => {
  let server: TestServer
  let client: Api
  let receiver: Receiver

  beforeAll(async () => {
    server = await startServer({
      dialect,
      env: { WEBHOOK_ALLOW_HOSTS: '127.0.0.9', WEBHOOK_RETRY_DELAYS: '', WEBHOOK_TIMEOUT_MS: '1000' },
    })
    client = api(server, server.apiKey)
    receiver = await startReceiver()
  })
  afterAll(async () => {
    await server?.close()
    await receiver?.close()
  })

  it.each([
    ['a name resolving to loopback', 'http://localhost:9/'],
    ['a loopback address not in the list', 'http://127.0.0.1:9/'],
  ])('refuses %s when saved', async (_what, url) => {
    const res = await client.post('/webhooks', { url, events: ['*'] })
    expectError(res, 400, 'validation_error')
    expect(res.body.details.issues[0]).toEqual({
      path: 'url',
      message: expect.stringMatching(/not (a )?public/),
    })
  })

  it('accepts an address the list names', async () => {
    expect((await client.post('/webhooks', { url: 'http://127.0.0.9:9/', events: ['*'] })).status).toBe(201)
  })

  it.each([
    ['a name that now resolves to loopback', () => `http://localhost:${receiver.port}/hook`],
    ['an address literal that is not public', () => `http://127.0.0.1:${receiver.port}/hook`],
  ])('refuses %s again at the attempt, sending nothing', async (_what, url) => {
    // As if the name's DNS record changed after the save: the stored row points elsewhere now.
    const made = await client.post('/webhooks', { url: 'http://127.0.0.9:9/', events: ['*'] })
    const id = made.body.data.id as string
    await server.ctx.db.updateTable('webhooks').set({ url: url() }).where('id', '=', id).execute()
    const queued = await client.post<{ data: WebhookDelivery }>(`/webhooks/${id}/test`)
    expect(queued.status).toBe(202)
    const deadline = Date.now() + 15_000
    let delivery: WebhookDelivery | undefined
    while (Date.now() < deadline) {
      delivery = (await client.get<{ data: WebhookDelivery[] }>(`/webhooks/${id}/deliveries`)).body.data[0]
      if (delivery?.status === 'failed') break
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, responseStatus: null })
    expect(delivery?.responseBody).toMatch(/^Refused: .*not (a )?public/)
    expect(receiver.received).toHaveLength(0)
  })
})
