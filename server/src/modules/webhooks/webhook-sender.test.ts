import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Migrator, TableNode, UpdateQueryNode } from 'kysely'
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

/** A migrated in-memory database with an account and a webhook per id, posting to the receiver. */
async function outbox(receiver: Server, webhookIds: string[]) {
  const { port } = receiver.address() as AddressInfo
  const config = loadConfig({ DATABASE_URL: 'file::memory:', WEBHOOK_ALLOW_HOSTS: '127.0.0.1' })
  const handle = openDatabase(config.database)
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
  for (const id of webhookIds)
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
  return { handle, ctx }
}

/** `count` qr_code.updated events, fanned out into deliveries. */
async function deliveriesOf(ctx: Awaited<ReturnType<typeof outbox>>['ctx'], count: number) {
  // What the sender sends is the stored body; these tests only count arrivals.
  type Updated = Extract<OutboxEvent, { type: 'qr_code.updated' }>
  const events = Array.from(
    { length: count },
    (_, i): Updated => ({
      accountId: 'acc',
      type: 'qr_code.updated',
      data: { id: `code-${i}` } as Updated['data'],
      qrCodeId: null,
    }),
  )
  await ctx.db.transaction().execute((trx) => appendEvents(ctx, trx, events))
  return fanOutEvents(ctx, 50)
}

describe('the webhook sender', () => {
  let handle: DatabaseHandle
  let receiver: Server
  let sender: WebhookSender | undefined
  /** The webhook of each delivery received, in the order they arrived. */
  const received: string[] = []

  beforeEach(async () => {
    received.length = 0
    receiver = createServer((req, res) => {
      received.push((req.url ?? '').slice(1))
      res.statusCode = 204
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

  it('takes turns between webhooks while the process is busy, so a poll does not always serve the same ones', async () => {
    const made = await outbox(receiver, WEBHOOKS)
    handle = made.handle
    const ctx = made.ctx
    // Every webhook has a backlog of EVENTS deliveries, more than one busy poll starts.
    expect(await deliveriesOf(ctx, EVENTS)).toBe(EVENTS)

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

  it('stores an outcome the database did not take at once again, instead of sending it twice', async () => {
    const made = await outbox(receiver, ['w-a'])
    handle = made.handle
    expect(await deliveriesOf(made.ctx, 1)).toBe(1)
    // The first two writes of an outcome fail, as a pool out of connections does.
    let refusals = 2
    const db = handle.db.withPlugin({
      transformQuery({ node }) {
        const table =
          UpdateQueryNode.is(node) && node.table && TableNode.is(node.table) ? node.table : undefined
        if (table?.table.identifier.name === 'webhook_deliveries' && refusals > 0) {
          refusals--
          throw new Error('timeout exceeded when trying to connect')
        }
        return node
      },
      transformResult: async ({ result }) => result,
    })
    sender = startWebhookSender({ ...made.ctx, db }, () => false)
    const deadline = Date.now() + 10_000
    let row: { status: string; attempts: number; lease_until: string | null } | undefined
    while (Date.now() < deadline) {
      row = await handle.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts', 'lease_until'])
        .executeTakeFirst()
      if (row?.status !== 'pending') break
      await new Promise((tick) => setTimeout(tick, 50))
    }
    expect(refusals).toBe(0)
    expect(row).toEqual({ status: 'succeeded', attempts: 1, lease_until: null })
    expect(received).toEqual(['w-a'])
  }, 20_000)
})
