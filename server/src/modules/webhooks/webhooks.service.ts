import {
  type CreateWebhook,
  type ListDeliveriesQuery,
  type ListWebhooksQuery,
  MAX_WEBHOOKS,
  type UpdateWebhook,
  type Webhook,
  type WebhookDelivery,
  type WebhookWithSecret,
} from '@qrctl/contract'
import type { Ctx } from '../../context.js'
import { type BeforeCommit, noBeforeCommit } from '../../db/unit-of-work.js'
import { conflict, invalidField, notFound } from '../../errors.js'
import { AllowList, destinationProblem } from './webhook-destinations.js'
import { appendTestEvent } from './webhook-outbox.js'
import { newWebhookSecret } from './webhook-signing.js'
import type { WebhookRecord } from './webhooks.repository.js'
import * as repo from './webhooks.repository.js'

/** After a rotation the old secret signs too, this long (DESIGN §15). */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000

export function toWebhook(r: WebhookRecord): Webhook {
  return {
    id: r.id,
    url: r.url,
    description: r.description,
    events: r.events,
    qrCodeIds: r.qrCodeIds,
    isActive: r.isActive,
    disabledReason: r.disabledReason,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  }
}

export async function getWebhookRecordOrThrow(ctx: Ctx, accountId: string, id: string) {
  const record = await repo.findWebhook(ctx.db, accountId, id)
  if (!record) throw notFound('webhook', id)
  return record
}

export async function getWebhookOrThrow(ctx: Ctx, accountId: string, id: string): Promise<Webhook> {
  return toWebhook(await getWebhookRecordOrThrow(ctx, accountId, id))
}

export async function listWebhooks(ctx: Ctx, accountId: string, query: ListWebhooksQuery) {
  const { records, total } = await repo.listWebhooks(ctx.db, accountId, query)
  return { data: records.map(toWebhook), total, limit: query.limit, offset: query.offset }
}

/** A destination the sender may not reach is a 400 at `url` (checked again at every attempt). */
async function assertDestination(ctx: Ctx, url: string): Promise<void> {
  const problem = await destinationProblem(url, new AllowList(ctx.config.webhookAllowHosts))
  if (problem) throw invalidField('url', problem)
}

/** Every id must be a live code of the account; the first that is not answers 404. */
async function assertOwnCodes(
  ctx: Ctx,
  accountId: string,
  ids: string[] | null | undefined,
): Promise<string[] | null> {
  if (!ids) return null
  const unique = [...new Set(ids)]
  const owned = await repo.ownedQrCodeIds(ctx.db, accountId, unique)
  const missing = unique.find((id) => !owned.has(id))
  if (missing) throw notFound('QR code', missing)
  return unique
}

export async function createWebhook(
  ctx: Ctx,
  accountId: string,
  input: CreateWebhook,
  beforeCommit: BeforeCommit<WebhookWithSecret> = noBeforeCommit,
): Promise<WebhookWithSecret> {
  await assertDestination(ctx, input.url)
  const qrCodeIds = await assertOwnCodes(ctx, accountId, input.qrCodeIds)
  const now = ctx.clock.now().toISOString()
  const record: WebhookRecord = {
    id: ctx.ids.uuid(),
    accountId,
    url: input.url,
    description: input.description ?? null,
    events: input.events,
    qrCodeIds,
    isActive: true,
    disabledReason: null,
    secret: newWebhookSecret(),
    previousSecret: null,
    previousSecretUntil: null,
    consecutiveFailures: 0,
    createdAt: now,
    updatedAt: now,
  }
  return ctx.db.transaction().execute(async (trx) => {
    // Counted in the transaction: on SQLite it holds the write lock, so two creates cannot both pass.
    if ((await repo.countWebhooks(trx, accountId)) >= MAX_WEBHOOKS)
      throw conflict(`An account has at most ${MAX_WEBHOOKS} webhooks; delete one first`, {
        limit: MAX_WEBHOOKS,
      })
    await repo.insertWebhook(trx, record)
    const created = { ...toWebhook(record), secret: record.secret }
    await beforeCommit(trx, created)
    return created
  })
}

export async function updateWebhook(
  ctx: Ctx,
  accountId: string,
  id: string,
  patch: UpdateWebhook,
): Promise<Webhook> {
  const current = await getWebhookRecordOrThrow(ctx, accountId, id)
  if (patch.url !== undefined && patch.url !== current.url) await assertDestination(ctx, patch.url)
  const qrCodeIds =
    patch.qrCodeIds === undefined ? undefined : await assertOwnCodes(ctx, accountId, patch.qrCodeIds)
  if (Object.values(patch).every((v) => v === undefined)) return toWebhook(current)
  const changes: repo.WebhookChanges = {
    url: patch.url,
    description: patch.description,
    events: patch.events,
    qrCodeIds,
    isActive: patch.isActive,
    updatedAt: ctx.clock.now().toISOString(),
  }
  // Enabled again: a clean slate (what it missed is not replayed). Disabled: nothing more is sent.
  if (patch.isActive === true && !current.isActive)
    Object.assign(changes, { disabledReason: null, consecutiveFailures: 0 })
  await ctx.db.transaction().execute(async (trx) => {
    await repo.updateWebhook(trx, id, changes)
    if (patch.isActive === false && current.isActive)
      await repo.failPendingDeliveries(trx, id, 'Not sent: the webhook was disabled')
  })
  return getWebhookOrThrow(ctx, accountId, id)
}

export async function deleteWebhook(ctx: Ctx, accountId: string, id: string): Promise<void> {
  await getWebhookRecordOrThrow(ctx, accountId, id)
  await repo.deleteWebhook(ctx.db, accountId, id)
}

const inactive = () => conflict('The webhook is disabled; enable it with PATCH { "isActive": true } first')

/** Queues a `webhook.test` event for this webhook alone, whatever its filters. */
export async function testWebhook(
  ctx: Ctx,
  accountId: string,
  id: string,
  beforeCommit: BeforeCommit<WebhookDelivery> = noBeforeCommit,
): Promise<WebhookDelivery> {
  return ctx.db.transaction().execute(async (trx) => {
    const webhook = await repo.findWebhook(trx, accountId, id)
    if (!webhook) throw notFound('webhook', id)
    if (!webhook.isActive) throw inactive()
    const row = await appendTestEvent(ctx, trx, webhook)
    const delivery = await repo.findDelivery(trx, id, row.id)
    if (!delivery) throw new Error('test delivery missing after insert')
    const answer = repo.toDelivery(delivery)
    await beforeCommit(trx, answer)
    return answer
  })
}

export async function listDeliveries(ctx: Ctx, accountId: string, id: string, query: ListDeliveriesQuery) {
  await getWebhookRecordOrThrow(ctx, accountId, id)
  const { rows, total } = await repo.listDeliveries(ctx.db, id, query)
  return { data: rows.map(repo.toDelivery), total, limit: query.limit, offset: query.offset }
}

/** One more attempt of the same delivery, due now; `attempts` grows by one when it is made. */
export async function redeliver(
  ctx: Ctx,
  accountId: string,
  id: string,
  deliveryId: string,
  beforeCommit: BeforeCommit<WebhookDelivery> = noBeforeCommit,
): Promise<WebhookDelivery> {
  return ctx.db.transaction().execute(async (trx) => {
    const webhook = await repo.findWebhook(trx, accountId, id)
    if (!webhook) throw notFound('webhook', id)
    if (!(await repo.findDelivery(trx, id, deliveryId))) throw notFound('delivery', deliveryId)
    if (!webhook.isActive) throw inactive()
    await repo.scheduleRedelivery(trx, id, deliveryId, ctx.clock.now().toISOString())
    const row = await repo.findDelivery(trx, id, deliveryId)
    if (!row) throw notFound('delivery', deliveryId)
    const answer = repo.toDelivery(row)
    await beforeCommit(trx, answer)
    return answer
  })
}

/**
 * A new secret; the current one keeps signing beside it for 24 hours. A second rotation within
 * those hours drops the oldest: only the two newest ever sign.
 */
export async function rotateSecret(
  ctx: Ctx,
  accountId: string,
  id: string,
  beforeCommit: BeforeCommit<{ secret: string }> = noBeforeCommit,
): Promise<{ secret: string }> {
  return ctx.db.transaction().execute(async (trx) => {
    const webhook = await repo.findWebhook(trx, accountId, id)
    if (!webhook) throw notFound('webhook', id)
    const now = ctx.clock.now()
    const secret = newWebhookSecret()
    await repo.updateWebhook(trx, id, {
      secret,
      previousSecret: webhook.secret,
      previousSecretUntil: new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString(),
      updatedAt: now.toISOString(),
    })
    const answer = { secret }
    await beforeCommit(trx, answer)
    return answer
  })
}
