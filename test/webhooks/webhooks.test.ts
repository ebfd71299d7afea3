import { readdirSync, readFileSync } from 'node:fs'
import type { QrCode, Webhook, WebhookDelivery, WebhookWithSecret } from '@qrctl/contract'
import { runHousekeeping } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Api, api, createCode, dynamicCode, expectError, MISSING_ID, textCode } from '../api/helpers.js'
import { AGENTS, PLACES, scanOk } from '../redirects/scan-helpers.js'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { type Receiver, startReceiver, verifyWithReference } from './receiver.js'

type Event = { type: string; timestamp: string; data: Record<string, unknown> }

describe.each(dialects())('webhooks on %s', (dialect) => {
  let server: TestServer
  const receivers: Receiver[] = []

  beforeAll(async () => {
    server = await startServer({
      dialect,
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        // Receivers listen on 127.0.0.1 and only there: the one non-public address allowed.
        WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
        WEBHOOK_RETRY_DELAYS: '1',
        WEBHOOK_FAILURE_LIMIT: '2',
        WEBHOOK_TIMEOUT_MS: '1000',
        TRUST_PROXY: '1',
      },
    })
  })
  afterAll(async () => {
    await server?.close()
    for (const r of receivers) await r.close()
  })

  /** A fresh account, a receiver and a webhook of that account pointing at it. */
  async function setup(body: Record<string, unknown> = { events: ['*'] }) {
    const account = await server.createAccount()
    const client = api(server, account.apiKey)
    const receiver = await startReceiver()
    receivers.push(receiver)
    const res = await client.post<{ data: WebhookWithSecret }>('/webhooks', { url: receiver.url, ...body })
    expect(res.status, res.text).toBe(201)
    return { client, receiver, webhook: res.body.data }
  }

  const events = (secret: string, receiver: Receiver): Event[] =>
    receiver.received.map((got) => verifyWithReference(secret, got) as Event)

  async function deliveries(client: Api, webhookId: string): Promise<WebhookDelivery[]> {
    const res = await client.get<{ data: WebhookDelivery[] }>(`/webhooks/${webhookId}/deliveries`)
    expect(res.status).toBe(200)
    return res.body.data
  }

  async function until<T>(
    read: () => Promise<T>,
    done: (value: T) => boolean,
    timeoutMs = 15_000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const value = await read()
      if (done(value)) return value
      if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(value)}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }

  describe('happy', () => {
    it('creates a webhook, shows its secret once and never again', async () => {
      const { client, webhook, receiver } = await setup({ events: ['scan.created'], description: 'CRM' })
      expect(webhook).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        url: receiver.url,
        description: 'CRM',
        events: ['scan.created'],
        qrCodeIds: null,
        isActive: true,
        disabledReason: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      })
      expect(Buffer.from(webhook.secret.slice(6), 'base64')).toHaveLength(32)
      const got = await client.get<{ data: Webhook }>(`/webhooks/${webhook.id}`)
      expect(got.status).toBe(200)
      expect(got.body.data).not.toHaveProperty('secret')
      const list = await client.get('/webhooks')
      expect(list.body).toMatchObject({ total: 1, limit: 50, offset: 0 })
      expect(list.body.data[0]).not.toHaveProperty('secret')
      expect(list.text).not.toContain(webhook.secret)
    })

    it('sends every change of a code as one signed Standard Webhooks event the reference library verifies', async () => {
      const { client, receiver, webhook } = await setup()
      const code = await createCode(client, textCode({ name: 'menu' }))
      expect((await client.patch(`/qr-codes/${code.id}`, { name: 'menu 2' })).status).toBe(200)
      expect((await client.delete(`/qr-codes/${code.id}`)).status).toBe(200)
      expect((await client.post(`/qr-codes/${code.id}/restore`)).status).toBe(200)
      await receiver.waitFor(4)
      const got = events(webhook.secret, receiver).sort((a, b) => (a.timestamp < b.timestamp ? -1 : 1))
      expect(got.map((e) => e.type).sort()).toEqual(
        ['qr_code.created', 'qr_code.deleted', 'qr_code.restored', 'qr_code.updated'].sort(),
      )
      const created = got.find((e) => e.type === 'qr_code.created')
      expect(created?.data).toEqual(code)
      expect(got.find((e) => e.type === 'qr_code.updated')?.data).toMatchObject({
        id: code.id,
        name: 'menu 2',
      })
      expect(got.find((e) => e.type === 'qr_code.deleted')?.data).toMatchObject({
        id: code.id,
        deletedAt: expect.any(String),
      })
      const ids = receiver.received.map((r) => r.headers['webhook-id'])
      expect(new Set(ids).size).toBe(4)
      for (const r of receiver.received) {
        expect(r.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/)
        expect(Number(r.headers['webhook-timestamp'])).toBeGreaterThan(Date.now() / 1000 - 60)
        expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
      }
      const log = await until(
        () => deliveries(client, webhook.id),
        (d) => d.length === 4 && d.every((x) => x.status === 'succeeded'),
      )
      expect(log[0]).toMatchObject({ attempts: 1, responseStatus: 204, nextAttemptAt: null })
    })

    it('sends scan.created with the scan batch: analytics values, never an address', async () => {
      const { client, receiver, webhook } = await setup({ events: ['scan.created'] })
      const code = await createCode(client, dynamicCode())
      const res = await fetch(`${server.baseUrl}/r/${code.shortCode}`, {
        redirect: 'manual',
        headers: { 'user-agent': AGENTS.iphone.ua, 'x-forwarded-for': PLACES.gb.ip },
      })
      expect(res.status).toBe(302)
      await server.running.scans.flush()
      const [got] = await receiver.waitFor(1)
      const event = verifyWithReference(webhook.secret, got as never) as Event
      expect(event).toEqual({
        type: 'scan.created',
        timestamp: expect.any(String),
        data: {
          qrCodeId: code.id,
          shortCode: code.shortCode,
          scannedAt: event.timestamp,
          device: 'mobile',
          browser: 'Mobile Safari',
          os: 'iOS',
          country: 'GB',
          city: 'London',
          referrer: 'direct',
          visitorId: expect.any(String),
        },
      })
      expect(got?.body).not.toContain(PLACES.gb.ip)
      // A batch of scans: one event each, each with its own webhook-id.
      for (let i = 0; i < 5; i++)
        await fetch(`${server.baseUrl}/r/${code.shortCode}`, {
          redirect: 'manual',
          headers: { 'user-agent': AGENTS.windows.ua },
        })
      await server.running.scans.flush()
      const all = await receiver.waitFor(6)
      expect(new Set(all.map((r) => r.headers['webhook-id'])).size).toBe(6)
      for (const r of all.slice(1))
        expect(verifyWithReference(webhook.secret, r).data).toMatchObject({
          qrCodeId: code.id,
          os: 'Windows',
        })
    })

    it('sends showcase events and filters by qrCodeIds', async () => {
      const account = await server.createAccount()
      const client = api(server, account.apiKey)
      const [a, b] = [await createCode(client), await createCode(client)] as [QrCode, QrCode]
      const receiver = await startReceiver()
      receivers.push(receiver)
      const made = await client.post<{ data: WebhookWithSecret }>('/webhooks', {
        url: receiver.url,
        events: ['showcase.created', 'showcase.updated', 'showcase.deleted', 'qr_code.updated'],
        qrCodeIds: [a.id],
      })
      expect(made.status, made.text).toBe(201)
      const forB = await client.post('/showcases', { qrCodeId: b.id, title: 'Not this one' })
      expect(forB.status).toBe(201)
      await client.patch(`/qr-codes/${b.id}`, { name: 'b2' })
      const forA = await client.post('/showcases', { qrCodeId: a.id, title: 'This one' })
      expect(forA.status).toBe(201)
      await client.patch(`/showcases/${forA.body.data.id}`, { title: 'This one, changed' })
      await client.delete(`/showcases/${forA.body.data.id}`)
      await receiver.waitFor(3)
      await new Promise((r) => setTimeout(r, 1200))
      const got = events(made.body.data.secret, receiver)
      expect(got.map((e) => e.type).sort()).toEqual([
        'showcase.created',
        'showcase.deleted',
        'showcase.updated',
      ])
      expect(got.every((e) => e.data.qrCodeId === a.id)).toBe(true)
      expect(got.find((e) => e.type === 'showcase.updated')?.data.title).toBe('This one, changed')
    })

    it('sends one event per code a bulk change changes, and none for a code it leaves as it was', async () => {
      const { client, receiver, webhook } = await setup({
        events: ['qr_code.updated', 'qr_code.deleted', 'qr_code.restored'],
      })
      const [a, b, c] = [
        await createCode(client, textCode({ tags: ['spring'] })),
        await createCode(client, textCode()),
        await createCode(client, textCode()),
      ] as [QrCode, QrCode, QrCode]
      const updated = await client.post('/qr-codes/bulk-update', {
        ids: [a.id, b.id, MISSING_ID],
        addTags: ['spring'],
      })
      expect(updated.body.data).toEqual({ updated: 1, errors: ['ids[2]: not found'] })
      const deleted = await client.post('/qr-codes/bulk-delete', { ids: [b.id, c.id] })
      expect(deleted.body.data.deleted).toBe(2)
      const restored = await client.post('/qr-codes/bulk-restore', { ids: [c.id] })
      expect(restored.body.data.restored).toBe(1)
      await receiver.waitFor(4)
      await new Promise((r) => setTimeout(r, 1200))
      const got = events(webhook.secret, receiver).map((e) => `${e.type} ${String(e.data.id)}`)
      expect(got.sort()).toEqual(
        [
          `qr_code.updated ${b.id}`,
          `qr_code.deleted ${b.id}`,
          `qr_code.deleted ${c.id}`,
          `qr_code.restored ${c.id}`,
        ].sort(),
      )
      const update = events(webhook.secret, receiver).find((e) => e.type === 'qr_code.updated')
      expect(update?.data.tags).toEqual(['spring'])
    })

    it('sends qr_code.scan_limit_reached once, when the maxScans-th scan is sent on', async () => {
      const { client, receiver, webhook } = await setup({ events: ['qr_code.scan_limit_reached'] })
      const code = await createCode(
        client,
        dynamicCode({ maxScans: 2, afterLimitUrl: 'https://example.com/all-gone' }),
      )
      const first = await scanOk(server, code.shortCode as string)
      expect(first.headers.get('location')).not.toBe('https://example.com/all-gone')
      await scanOk(server, code.shortCode as string)
      const third = await scanOk(server, code.shortCode as string)
      expect(third.headers.get('location')).toBe('https://example.com/all-gone')
      await receiver.waitFor(1)
      await new Promise((r) => setTimeout(r, 1200))
      const got = events(webhook.secret, receiver)
      expect(got).toHaveLength(1)
      expect(got[0]).toMatchObject({
        type: 'qr_code.scan_limit_reached',
        data: { id: code.id, maxScans: 2, afterLimitUrl: 'https://example.com/all-gone' },
      })
    })

    it('test sends webhook.test whatever the filters, and the log shows it', async () => {
      const { client, receiver, webhook } = await setup({ events: ['scan.created'] })
      const res = await client.post<{ data: WebhookDelivery }>(`/webhooks/${webhook.id}/test`)
      expect(res.status).toBe(202)
      expect(res.body.data).toMatchObject({ type: 'webhook.test', status: 'pending', attempts: 0 })
      await receiver.waitFor(1)
      expect(events(webhook.secret, receiver)[0]).toMatchObject({
        type: 'webhook.test',
        data: { webhookId: webhook.id },
      })
      expect(receiver.received[0]?.headers['webhook-id']).toBe(res.body.data.eventId)
    })

    it('rotating the secret signs with both secrets, each verifying on its own', async () => {
      const { client, receiver, webhook } = await setup()
      const rotated = await client.post<{ data: { secret: string } }>(`/webhooks/${webhook.id}/rotate-secret`)
      expect(rotated.status).toBe(201)
      const secret = rotated.body.data.secret
      expect(secret).not.toBe(webhook.secret)
      await client.post(`/webhooks/${webhook.id}/test`)
      const [got] = await receiver.waitFor(1)
      expect(String(got?.headers['webhook-signature']).split(' ')).toHaveLength(2)
      expect(verifyWithReference(secret, got as never).type).toBe('webhook.test')
      expect(verifyWithReference(webhook.secret, got as never).type).toBe('webhook.test')
      // A second rotation drops the oldest: the first secret no longer verifies.
      const again = await client.post<{ data: { secret: string } }>(`/webhooks/${webhook.id}/rotate-secret`)
      await client.post(`/webhooks/${webhook.id}/test`)
      const [, second] = await receiver.waitFor(2)
      expect(verifyWithReference(again.body.data.secret, second as never).type).toBe('webhook.test')
      expect(verifyWithReference(secret, second as never).type).toBe('webhook.test')
      expect(() => verifyWithReference(webhook.secret, second as never)).toThrow()
    })

    it('signs with the old secret for 24 hours after a rotation, then with the new one alone', async () => {
      const { client, receiver, webhook } = await setup()
      const before = Date.now()
      const rotated = await client.post<{ data: { secret: string } }>(`/webhooks/${webhook.id}/rotate-secret`)
      const after = Date.now()
      const stored = await server.ctx.db
        .selectFrom('webhooks')
        .select('previous_secret_until')
        .where('id', '=', webhook.id)
        .executeTakeFirstOrThrow()
      const until = Date.parse(String(stored.previous_secret_until))
      expect(until).toBeGreaterThanOrEqual(before + 24 * 3_600_000)
      expect(until).toBeLessThanOrEqual(after + 24 * 3_600_000)
      // The 24 hours over: the old secret's signature goes.
      await server.ctx.db
        .updateTable('webhooks')
        .set({ previous_secret_until: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', webhook.id)
        .execute()
      await client.post(`/webhooks/${webhook.id}/test`)
      const [got] = await receiver.waitFor(1)
      expect(String(got?.headers['webhook-signature']).split(' ')).toHaveLength(1)
      expect(verifyWithReference(rotated.body.data.secret, got as never).type).toBe('webhook.test')
      expect(() => verifyWithReference(webhook.secret, got as never)).toThrow()
    })

    it('updates and deletes a webhook', async () => {
      const { client, webhook } = await setup()
      const res = await client.patch<{ data: Webhook }>(`/webhooks/${webhook.id}`, {
        events: ['qr_code.created'],
        description: 'changed',
      })
      expect(res.status).toBe(200)
      expect(res.body.data).toMatchObject({ events: ['qr_code.created'], description: 'changed' })
      expect((await client.delete(`/webhooks/${webhook.id}`)).body).toEqual({ success: true })
      expectError(await client.get(`/webhooks/${webhook.id}`), 404, 'not_found')
    })
  })

  describe('delivery rules', () => {
    it.skipIf(process.platform !== 'linux')(
      'sends from a thread of its own at the lowest priority, the request thread keeping its own',
      async () => {
        // A thread's nice value is the 19th field of its stat line (the 17th after the name).
        const nice = (statFile: string) => {
          const stat = readFileSync(statFile, 'utf8')
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
        }
        // The thread starts once a webhook exists, and lowers its priority once it has loaded
        // (from source that takes a moment).
        const { client, receiver, webhook } = await setup()
        const threads = await until(
          async () => readdirSync('/proc/self/task').map((id) => nice(`/proc/self/task/${id}/stat`)),
          (values) => values.includes(19),
        )
        expect(threads).toContain(19)
        expect(nice('/proc/thread-self/stat')).toBe(0)
        // And that thread sends.
        await client.post(`/webhooks/${webhook.id}/test`)
        expect(await receiver.waitFor(1)).toHaveLength(1)
      },
    )

    it('retries a failed attempt after WEBHOOK_RETRY_DELAYS with the same webhook-id', async () => {
      const { client, receiver, webhook } = await setup()
      let calls = 0
      receiver.answer = () => (++calls === 1 ? { status: 500, body: 'try later' } : { status: 200 })
      await client.post(`/webhooks/${webhook.id}/test`)
      const [first, second] = await receiver.waitFor(2)
      expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id'])
      expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(900)
      const [log] = await until(
        () => deliveries(client, webhook.id),
        (d) => d[0]?.status === 'succeeded',
      )
      expect(log).toMatchObject({ attempts: 2, responseStatus: 200 })
    })

    it('counts a redirect as a failure and does not follow it', async () => {
      const { client, receiver, webhook } = await setup()
      const elsewhere = await startReceiver()
      receivers.push(elsewhere)
      receiver.answer = () => ({ status: 307, headers: { location: elsewhere.url } })
      await client.post(`/webhooks/${webhook.id}/test`)
      const [log] = await until(
        () => deliveries(client, webhook.id),
        (d) => d[0]?.status === 'failed',
      )
      expect(log).toMatchObject({ attempts: 2, responseStatus: 307 })
      expect(elsewhere.received).toHaveLength(0)
    })

    it('fails an attempt not answered within WEBHOOK_TIMEOUT_MS, then redelivers on request', async () => {
      const { client, receiver, webhook } = await setup()
      receiver.answer = () => 'hang'
      await client.post(`/webhooks/${webhook.id}/test`)
      const [log] = await until(
        () => deliveries(client, webhook.id),
        (d) => d[0]?.status === 'failed',
      )
      expect(log).toMatchObject({ attempts: 2, responseStatus: null })
      expect(log?.responseBody).toBe('No complete answer within 1000 ms')
      expect(log?.durationMs).toBeGreaterThanOrEqual(900)
      receiver.answer = () => ({ status: 202, body: 'x'.repeat(5000) })
      const again = await client.post<{ data: WebhookDelivery }>(
        `/webhooks/${webhook.id}/deliveries/${log?.id}/redeliver`,
      )
      expect(again.status).toBe(202)
      expect(again.body.data).toMatchObject({ id: log?.id, status: 'pending' })
      const [after] = await until(
        () => deliveries(client, webhook.id),
        (d) => d[0]?.status === 'succeeded',
      )
      expect(after).toMatchObject({ attempts: 3, responseStatus: 202 })
      expect(after?.responseBody).toHaveLength(1024)
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual(Array(3).fill(log?.eventId))
    })

    it('a 410 disables the webhook at once; enabling again does not replay what it missed', async () => {
      const { client, receiver, webhook } = await setup({ events: ['qr_code.created'] })
      receiver.answer = () => ({ status: 410 })
      await createCode(client)
      await until(
        () => client.get<{ data: Webhook }>(`/webhooks/${webhook.id}`),
        (r) => r.body.data.disabledReason === 'gone',
      )
      expect(receiver.received).toHaveLength(1)
      await createCode(client)
      expectError(await client.post(`/webhooks/${webhook.id}/test`), 409, 'conflict')
      receiver.answer = () => ({ status: 204 })
      const enabled = await client.patch<{ data: Webhook }>(`/webhooks/${webhook.id}`, { isActive: true })
      expect(enabled.body.data).toMatchObject({ isActive: true, disabledReason: null })
      await createCode(client, textCode({ name: 'after' }))
      await receiver.waitFor(2)
      await new Promise((r) => setTimeout(r, 1200))
      expect(receiver.received).toHaveLength(2)
      expect(JSON.parse(receiver.received[1]?.body ?? '{}').data.name).toBe('after')
    })

    it('WEBHOOK_FAILURE_LIMIT deliveries ending failed in a row disable it as failing', async () => {
      const { client, receiver, webhook } = await setup()
      receiver.answer = () => ({ status: 503 })
      await client.post(`/webhooks/${webhook.id}/test`)
      await client.post(`/webhooks/${webhook.id}/test`)
      const got = await until(
        () => client.get<{ data: Webhook }>(`/webhooks/${webhook.id}`),
        (r) => r.body.data.disabledReason === 'failing',
      )
      expect(got.body.data.isActive).toBe(false)
    })

    it('housekeeping drops ended deliveries and their events after 30 days, keeping newer ones', async () => {
      const { client, receiver, webhook } = await setup()
      await client.post(`/webhooks/${webhook.id}/test`)
      await client.post(`/webhooks/${webhook.id}/test`)
      await receiver.waitFor(2)
      const [recent, old] = await until(
        () => deliveries(client, webhook.id),
        (d) => d.length === 2 && d.every((x) => x.status === 'succeeded'),
      )
      const longAgo = new Date(Date.now() - 31 * 86_400_000).toISOString()
      const db = server.ctx.db
      await db
        .updateTable('webhook_deliveries')
        .set({ created_at: longAgo })
        .where('id', '=', old?.id as string)
        .execute()
      await db
        .updateTable('webhook_events')
        .set({ created_at: longAgo })
        .where('id', '=', old?.eventId as string)
        .execute()
      expect((await runHousekeeping(server.ctx)).purgedWebhookDeliveries).toBe(1)
      expect((await deliveries(client, webhook.id)).map((d) => d.id)).toEqual([recent?.id])
      const events = await db
        .selectFrom('webhook_events')
        .select('id')
        .where('id', '=', old?.eventId as string)
        .execute()
      expect(events).toEqual([])
    })

    it('a change that is rolled back sends nothing', async () => {
      const { client, receiver } = await setup({ events: ['qr_code.created'] })
      await createCode(client, textCode({ externalId: 'one' }))
      const taken = await client.post('/qr-codes', textCode({ externalId: 'one', name: 'duplicate' }))
      expectError(taken, 409, 'conflict')
      await receiver.waitFor(1)
      await new Promise((r) => setTimeout(r, 1200))
      expect(receiver.received).toHaveLength(1)
    })
  })

  describe('errors', () => {
    let client: Api
    beforeAll(async () => {
      client = api(server, (await server.createAccount()).apiKey)
    })

    it.each([
      ['a loopback address outside WEBHOOK_ALLOW_HOSTS', 'http://127.0.0.2:9/hook'],
      ['IPv6 loopback', 'http://[::1]:9/hook'],
      ['an IPv4-mapped loopback', 'http://[::ffff:127.0.0.2]:9/hook'],
    ])('refuses %s with a 400 at url', async (_what, url) => {
      const res = await client.post('/webhooks', { url, events: ['*'] })
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues).toEqual([{ path: 'url', message: expect.stringMatching(/public/) }])
    })

    it('refuses the same on update', async () => {
      const { client: own, webhook } = await setup()
      const res = await own.patch(`/webhooks/${webhook.id}`, { url: 'http://127.0.0.2:9/' })
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues[0].path).toBe('url')
    })

    it.each([
      [{ url: 'ftp://127.0.0.1/x', events: ['*'] }, 'url'],
      [{ url: 'http://127.0.0.1:9/', events: [] }, 'events'],
      [{ url: 'http://127.0.0.1:9/', events: ['*', 'scan.created'] }, 'events'],
      [{ url: 'http://127.0.0.1:9/', events: ['scan.deleted'] }, 'events.0'],
      [{ url: 'http://127.0.0.1:9/', events: ['*'], secret: 'mine' }, ''],
      [{ url: 'http://127.0.0.1:9/', events: ['*'], qrCodeIds: ['nope'] }, 'qrCodeIds.0'],
    ])('refuses %j naming the field', async (body, path) => {
      const res = await client.post('/webhooks', body)
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues.map((i: { path: string }) => i.path)).toContain(path)
    })

    it('answers 404 for a qrCodeIds entry that is not a code of the account', async () => {
      const res = await client.post('/webhooks', {
        url: 'http://127.0.0.1:9/',
        events: ['*'],
        qrCodeIds: [MISSING_ID],
      })
      expectError(res, 404, 'not_found')
    })

    it('answers 409 for the 21st webhook', async () => {
      const own = api(server, (await server.createAccount()).apiKey)
      for (let i = 0; i < 20; i++)
        expect((await own.post('/webhooks', { url: `http://127.0.0.1:9/${i}`, events: ['*'] })).status).toBe(
          201,
        )
      expectError(
        await own.post('/webhooks', { url: 'http://127.0.0.1:9/21', events: ['*'] }),
        409,
        'conflict',
      )
    })

    it('answers 404 for an unknown webhook or delivery and 400 for a malformed id', async () => {
      const { client: own, webhook } = await setup()
      expectError(await own.get(`/webhooks/${MISSING_ID}`), 404, 'not_found')
      expectError(
        await own.post(`/webhooks/${webhook.id}/deliveries/${MISSING_ID}/redeliver`),
        404,
        'not_found',
      )
      expectError(await own.get('/webhooks/not-a-uuid'), 400, 'validation_error')
      expectError(await own.get(`/webhooks/${webhook.id}/deliveries?limit=101`), 400, 'validation_error')
    })
  })

  describe('security', () => {
    it('answers 404 for another account’s webhook on every route', async () => {
      const { webhook } = await setup()
      const other = api(server, (await server.createAccount()).apiKey)
      for (const res of [
        await other.get(`/webhooks/${webhook.id}`),
        await other.patch(`/webhooks/${webhook.id}`, { description: 'x' }),
        await other.post(`/webhooks/${webhook.id}/test`),
        await other.get(`/webhooks/${webhook.id}/deliveries`),
        await other.post(`/webhooks/${webhook.id}/rotate-secret`),
        await other.delete(`/webhooks/${webhook.id}`),
      ])
        expectError(res, 404, 'not_found')
      expect((await other.get('/webhooks')).body.total).toBe(0)
    })

    it('needs a write scope to change and a read scope to read', async () => {
      const reader = api(server, (await server.createAccount({ scope: 'read' })).apiKey)
      const writer = api(server, (await server.createAccount({ scope: 'write' })).apiKey)
      expectError(
        await reader.post('/webhooks', { url: 'http://127.0.0.1:9/', events: ['*'] }),
        403,
        'insufficient_scope',
      )
      expectError(await writer.get('/webhooks'), 403, 'insufficient_scope')
      expect((await reader.get('/webhooks')).status).toBe(200)
    })
  })
})
