import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Migrator } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../config.js'
import { type DatabaseHandle, openDatabase } from '../../db/database.js'
import { migrations } from '../../db/migrations/index.js'
import { systemClock } from '../../lib/clock.js'
import { randomIds } from '../../lib/ids.js'
import { createLogger } from '../../logger.js'
import { insertAccount } from '../../testing/fixtures.js'
import { appendEvents, fanOutEvents, type OutboxEvent } from './webhook-outbox.js'
import { startWebhookSender, type WebhookSender } from './webhook-sender.js'
import { insertWebhook } from './webhooks.repository.js'

const NOW = new Date().toISOString()
const WEBHOOKS = ['w-a', 'w-b', 'w-c', 'w-d']
const EVENTS = 8

describe('the sender while the process is busy', () => {
  let handle: DatabaseHandle
  let receiver: Server
  let sender: WebhookSender | undefined
  /** The webhook of each delivery received, in the order they arrived. */
  const received: string[] = []

  beforeEach(async () => {
    received.length = 0
    receiver = createServer((req, res) => {
      received.push((req.url ?? '').slice(1))
      res.end()
    })
    await new Promise<void>((listening) => receiver.listen(0, '127.0.0.1', listening))
  })
  afterEach(async () => {
    await sender?.close()
    sender = undefined
    await new Promise((closed) => receiver.close(closed))
    await handle.close()
  })

  it('takes turns between webhooks, so a busy poll does not always serve the same ones', async () => {
    const { port } = receiver.address() as AddressInfo
    const config = loadConfig({ DATABASE_URL: 'file::memory:', WEBHOOK_ALLOW_HOSTS: '127.0.0.1' })
    handle = openDatabase(config.database)
    const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateToLatest()).error).toBeUndefined()
    const ctx = {
      ...handle,
      config,
      clock: systemClock,
      ids: randomIds,
      logger: createLogger(config),
    }
    await insertAccount(handle.db, 'acc', NOW)
    for (const id of WEBHOOKS)
      await insertWebhook(handle.db, {
        id,
        accountId: 'acc',
        url: `http://127.0.0.1:${port}/${id}`,
        description: null,
        events: ['qr_code.updated'],
        qrCodeIds: null,
        isActive: true,
        disabledReason: null,
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        previousSecret: null,
        previousSecretUntil: null,
        consecutiveFailures: 0,
        createdAt: NOW,
        updatedAt: NOW,
      })
    // Every webhook has a backlog of EVENTS deliveries, more than one busy poll starts.
    // What the sender sends is the stored body; this test only counts arrivals.
    type Updated = Extract<OutboxEvent, { type: 'qr_code.updated' }>
    const events = Array.from(
      { length: EVENTS },
      (_, i): Updated => ({
        accountId: 'acc',
        type: 'qr_code.updated',
        data: { id: `code-${i}` } as Updated['data'],
        qrCodeId: null,
      }),
    )
    await handle.db.transaction().execute((trx) => appendEvents(ctx, trx, events))
    expect(await fanOutEvents(ctx, 50)).toBe(EVENTS)

    // Always busy: each poll starts at most 8 attempts, at most 4 per webhook.
    sender = startWebhookSender(ctx, () => true)
    const deadline = Date.now() + 20_000
    while (received.length < WEBHOOKS.length * EVENTS && Date.now() < deadline)
      await new Promise((tick) => setTimeout(tick, 50))
    expect(received).toHaveLength(WEBHOOKS.length * EVENTS)
    // The first two busy polls (16 attempts) reach every webhook, not only the first two four
    // times over: w-c and w-d would otherwise wait until w-a's and w-b's backlogs were gone.
    expect(new Set(received.slice(0, 16))).toEqual(new Set(WEBHOOKS))
  }, 30_000)
})
