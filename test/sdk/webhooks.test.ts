import {
  type Qrctl,
  QrctlConflictError,
  QrctlNotFoundError,
  QrctlValidationError,
  QrctlWebhookVerificationError,
  verifyWebhook,
  type WebhookEvent,
} from '@qrctl/sdk'
import { Webhook as ReferenceWebhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import { startServer, type TestServer } from '../support/server.js'
import { type Receiver, startReceiver } from '../webhooks/receiver.js'
import { clientOfNewAccount } from './live.js'

let server: TestServer
let qrctl: Qrctl
let receiver: Receiver

beforeAll(async () => {
  server = await startServer({ env: { WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_RETRY_DELAYS: '' } })
  qrctl = await clientOfNewAccount(server)
  receiver = await startReceiver()
})
afterAll(async () => {
  await qrctl?.close()
  await server?.close()
  await receiver?.close()
})

describe('webhooks through the SDK against a live server', () => {
  it('manages webhooks and verifies what they receive, typed by event', async () => {
    const hook = await qrctl.webhooks.create({
      url: receiver.url,
      events: ['qr_code.created', 'scan.created'],
    })
    expect(hook.secret).toMatch(/^whsec_/)
    expect(await qrctl.webhooks.get(hook.id)).not.toHaveProperty('secret')
    const code = await qrctl.qrCodes.create({ name: 'Stand 4', contentType: 'text', content: 'hello' })
    const [got] = await receiver.waitFor(1)
    const event = verifyWebhook(got?.body ?? '', got?.headers ?? {}, hook.secret)
    expectTypeOf(event).toEqualTypeOf<WebhookEvent>()
    if (event.type !== 'qr_code.created') throw new Error(`unexpected ${event.type}`)
    // Narrowed by `type`: `data` is a QrCode here.
    expectTypeOf(event.data.name).toEqualTypeOf<string>()
    expect(event.data).toEqual(code)

    const updated = await qrctl.webhooks.update(hook.id, { description: 'stand 4', isActive: true })
    expect(updated.description).toBe('stand 4')
    expect((await qrctl.webhooks.list()).total).toBe(1)
    const all: string[] = []
    for await (const h of qrctl.webhooks.listAll()) all.push(h.id)
    expect(all).toEqual([hook.id])

    const test = await qrctl.webhooks.test(hook.id)
    await receiver.waitFor(2)
    const testEvent = verifyWebhook(
      receiver.received[1]?.body ?? '',
      receiver.received[1]?.headers ?? {},
      hook.secret,
    )
    expect(testEvent).toMatchObject({ type: 'webhook.test', data: { webhookId: hook.id } })
    const page = await qrctl.webhooks.deliveries(hook.id, { limit: 10 })
    expect(page.data.map((d) => d.id)).toContain(test.id)
    const again = await qrctl.webhooks.redeliver(hook.id, test.id)
    expect(again.id).toBe(test.id)
    const { secret } = await qrctl.webhooks.rotateSecret(hook.id)
    expect(secret).not.toBe(hook.secret)
    expect(await qrctl.webhooks.delete(hook.id)).toEqual({ success: true })
    await expect(qrctl.webhooks.get(hook.id)).rejects.toBeInstanceOf(QrctlNotFoundError)
  })

  it('throws the SDK errors for a refused destination and a 21st webhook', async () => {
    const own = await clientOfNewAccount(server)
    await expect(own.webhooks.create({ url: 'http://127.0.0.2/x', events: ['*'] })).rejects.toBeInstanceOf(
      QrctlValidationError,
    )
    for (let i = 0; i < 20; i++) await own.webhooks.create({ url: `${receiver.url}/${i}`, events: ['*'] })
    await expect(own.webhooks.create({ url: receiver.url, events: ['*'] })).rejects.toBeInstanceOf(
      QrctlConflictError,
    )
    await own.close()
  })
})

describe('verifyWebhook', () => {
  const reference = new ReferenceWebhook(`whsec_${Buffer.alloc(32, 9).toString('base64')}`)
  const secret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`
  const body = JSON.stringify({
    type: 'webhook.test',
    timestamp: '2026-11-24T10:00:00.000Z',
    data: { webhookId: '3f2b8c1e-9d4a-4b7e-8c2f-1a6d5e4b3c2a' },
  })
  const now = new Date('2026-11-24T10:00:00Z')
  const signed = (at: Date, payload = body, id = 'msg_1') => ({
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': reference.sign(id, at, payload),
  })

  it('accepts what the reference implementation signs, headers as a record or a Headers object', () => {
    expect(verifyWebhook(body, signed(now), secret, { now }).type).toBe('webhook.test')
    expect(verifyWebhook(Buffer.from(body), new Headers(signed(now)), secret, { now }).type).toBe(
      'webhook.test',
    )
  })

  it('accepts a delivery carrying the old and the new signature during a rotation', () => {
    const headers = signed(now)
    const other = new ReferenceWebhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`)
    headers['webhook-signature'] = `${other.sign('msg_1', now, body)} ${headers['webhook-signature']}`
    expect(verifyWebhook(body, headers, secret, { now }).type).toBe('webhook.test')
  })

  const reason = (run: () => unknown) => {
    try {
      run()
    } catch (error) {
      expect(error).toBeInstanceOf(QrctlWebhookVerificationError)
      return (error as QrctlWebhookVerificationError).reason
    }
    return 'accepted'
  }

  it('rejects a bad signature, a wrong secret, a stale timestamp and missing headers', () => {
    const headers = signed(now)
    expect(reason(() => verifyWebhook(`${body} `, headers, secret, { now }))).toBe('signature')
    const wrong = `whsec_${Buffer.alloc(32, 8).toString('base64')}`
    expect(reason(() => verifyWebhook(body, headers, wrong, { now }))).toBe('signature')
    const stale = signed(new Date(now.getTime() - 301_000))
    expect(reason(() => verifyWebhook(body, stale, secret, { now }))).toBe('timestamp')
    expect(reason(() => verifyWebhook(body, { 'webhook-id': 'msg_1' }, secret, { now }))).toBe('headers')
  })

  it('rejects a replayed body: under a fresh timestamp the signature fails, and a seen id is refused', () => {
    const old = signed(new Date(now.getTime() - 3_600_000))
    const refreshed = { ...old, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)) }
    expect(reason(() => verifyWebhook(body, refreshed, secret, { now }))).toBe('signature')
    const seen = new Set<string>()
    expect(verifyWebhook(body, signed(now), secret, { now, seen }).type).toBe('webhook.test')
    expect(reason(() => verifyWebhook(body, signed(now), secret, { now, seen }))).toBe('replayed')
  })

  it('rejects a signed body that is not a qrctl event', () => {
    const payload = JSON.stringify({ type: 'invoice.paid', data: {} })
    expect(reason(() => verifyWebhook(payload, signed(now, payload), secret, { now }))).toBe('payload')
  })
})
