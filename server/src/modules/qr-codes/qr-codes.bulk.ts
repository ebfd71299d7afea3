import {
  type BulkDeleteResult,
  type BulkRestoreResult,
  type BulkUpdate,
  type BulkUpdateResult,
  externalIdTakenMessage,
  formatBulkError,
  sortTags,
  TAG_LIMIT,
} from '@qrctl/contract'
import type { Ctx } from '../../context.js'
import type { Db } from '../../db/database.js'
import { isUniqueViolation } from '../../db/errors.js'
import { type BeforeCommit, noBeforeCommit } from '../../db/unit-of-work.js'
import { addDays } from '../../lib/clock.js'
import { appendEvents } from '../webhooks/webhook-outbox.js'
import type { QrCodeRecord } from './qr-codes.repository.js'
import * as repo from './qr-codes.repository.js'
import { RESTORE_WINDOW_DAYS, toQrCode } from './qr-codes.service.js'

/**
 * Bulk changes (DESIGN §17): up to 100 codes in one transaction. Each id is first judged on its
 * own (a `Change` or an error string), then every change is written by `applyChange`, the one
 * place each changed code passes through inside the transaction.
 */
type Change =
  | { kind: 'updated'; code: QrCodeRecord; changes: repo.QrCodeChanges }
  | { kind: 'deleted'; code: QrCodeRecord }
  | { kind: 'restored'; code: QrCodeRecord }

type Verdict = Change | { error: string } | undefined

async function applyChange(ctx: Ctx, trx: Db, change: Change, now: string): Promise<void> {
  const { code } = change
  if (change.kind === 'updated') await repo.updateQrCode(trx, code, change.changes)
  else await repo.setDeletedAt(trx, code.accountId, code.id, change.kind === 'deleted' ? now : null, now)
  // DESIGN §17: webhooks fire per code, in this transaction, so each event exists exactly
  // when its change does; a code the request left as it was never reaches this point.
  await appendEvents(ctx, trx, [
    {
      accountId: code.accountId,
      type: `qr_code.${change.kind}`,
      data: toQrCode(ctx, code),
      qrCodeId: code.id,
    },
  ])
}

/** Each distinct id with the index of its first occurrence (a repeated id counts once). */
function firstIndexes(ids: readonly string[]): Map<string, number> {
  const first = new Map<string, number>()
  ids.forEach((id, index) => {
    if (!first.has(id)) first.set(id, index)
  })
  return first
}

/**
 * Judges every id against its code (undefined when the account has no such code at all), then
 * applies the changes and stores the answer in one transaction; retried whole when a unique
 * index refuses a write a concurrent request made possible (a restored externalId).
 */
async function runBulk<T>(
  ctx: Ctx,
  accountId: string,
  ids: readonly string[],
  judge: (
    code: QrCodeRecord | undefined,
    now: Date,
    taken: (code: QrCodeRecord) => Promise<string | undefined>,
  ) => Promise<Verdict>,
  answer: (count: number, errors: string[]) => T,
  beforeCommit: BeforeCommit<T>,
): Promise<T> {
  const first = firstIndexes(ids)
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.transaction().execute(async (trx) => {
        const now = ctx.clock.now()
        const codes = await repo.findQrCodesForUpdate(trx, ctx.dialect, accountId, [...first.keys()])
        const byId = new Map(codes.map((code) => [code.id, code]))
        const externalIds = externalIdLedger(trx, accountId)
        const changes: Change[] = []
        const errors: string[] = []
        for (const [id, index] of first) {
          const verdict = await judge(byId.get(id), now, externalIds)
          if (verdict && 'error' in verdict) errors.push(formatBulkError(index, verdict.error))
          else if (verdict) changes.push(verdict)
        }
        for (const change of changes) await applyChange(ctx, trx, change, now.toISOString())
        const result = answer(changes.length, errors)
        await beforeCommit(trx, result)
        return result
      })
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= 3) throw error
    }
  }
}

/**
 * Who holds a restored code's externalId: a live code, or a code restored earlier in the same
 * request (the first one wins). Undefined when the externalId is free, and records it as taken.
 */
function externalIdLedger(trx: Db, accountId: string) {
  const claimed = new Map<string, string>()
  return async (code: QrCodeRecord): Promise<string | undefined> => {
    if (code.externalId === null) return undefined
    const holder =
      claimed.get(code.externalId) ??
      (await repo.liveExternalIds(trx, accountId, [code.externalId])).get(code.externalId)
    if (holder) return holder
    claimed.set(code.externalId, code.id)
    return undefined
  }
}

const NOT_FOUND = { error: 'not found' }

/** The tags a code ends with: `set.tags` (or its own), plus `addTags`, minus `removeTags`. */
function nextTags(code: QrCodeRecord, body: BulkUpdate): string[] {
  const removed = new Set(body.removeTags ?? [])
  const tags = [...(body.set?.tags ?? code.tags), ...(body.addTags ?? [])].filter((tag) => !removed.has(tag))
  return sortTags(tags)
}

export function bulkUpdate(
  ctx: Ctx,
  accountId: string,
  body: BulkUpdate,
  beforeCommit: BeforeCommit<BulkUpdateResult> = noBeforeCommit,
): Promise<BulkUpdateResult> {
  const judge = async (code: QrCodeRecord | undefined, now: Date): Promise<Verdict> => {
    if (!code || code.deletedAt !== null) return NOT_FOUND
    const tags = nextTags(code, body)
    if (tags.length > TAG_LIMIT)
      return { error: `would have ${tags.length} tags; a code holds at most ${TAG_LIMIT}` }
    const isActive = body.set?.isActive ?? code.isActive
    const tagsChanged = tags.join('\n') !== code.tags.join('\n')
    // A code left as it was keeps its updatedAt and is not counted (nor announced).
    if (!tagsChanged && isActive === code.isActive) return undefined
    const updatedAt = now.toISOString()
    return {
      kind: 'updated',
      code: { ...code, tags, isActive, updatedAt },
      changes: {
        ...(tagsChanged && { tags }),
        ...(isActive !== code.isActive && { isActive }),
        updatedAt,
      },
    }
  }
  return runBulk(ctx, accountId, body.ids, judge, (updated, errors) => ({ updated, errors }), beforeCommit)
}

export function bulkDelete(
  ctx: Ctx,
  accountId: string,
  ids: readonly string[],
  beforeCommit: BeforeCommit<BulkDeleteResult> = noBeforeCommit,
): Promise<BulkDeleteResult> {
  const judge = async (code: QrCodeRecord | undefined, now: Date): Promise<Verdict> => {
    if (!code || code.deletedAt !== null) return NOT_FOUND
    const at = now.toISOString()
    return { kind: 'deleted', code: { ...code, deletedAt: at, updatedAt: at } }
  }
  return runBulk(ctx, accountId, ids, judge, (deleted, errors) => ({ deleted, errors }), beforeCommit)
}

export function bulkRestore(
  ctx: Ctx,
  accountId: string,
  ids: readonly string[],
  beforeCommit: BeforeCommit<BulkRestoreResult> = noBeforeCommit,
): Promise<BulkRestoreResult> {
  const judge = async (
    code: QrCodeRecord | undefined,
    now: Date,
    taken: (code: QrCodeRecord) => Promise<string | undefined>,
  ): Promise<Verdict> => {
    if (!code) return NOT_FOUND
    if (code.deletedAt === null) return { error: 'not deleted' }
    // Past the restore window the code is as good as purged (the same rule as a single restore).
    if (now > addDays(code.deletedAt, RESTORE_WINDOW_DAYS)) return NOT_FOUND
    const holder = await taken(code)
    if (holder) return { error: externalIdTakenMessage(holder) }
    return { kind: 'restored', code: { ...code, deletedAt: null, updatedAt: now.toISOString() } }
  }
  return runBulk(ctx, accountId, ids, judge, (restored, errors) => ({ restored, errors }), beforeCommit)
}
