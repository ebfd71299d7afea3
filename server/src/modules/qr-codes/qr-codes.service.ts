import {
  BATCH_MAX,
  type BatchItemError,
  type BatchResult,
  type CreateQrCode,
  encodePayload,
  externalIdTakenMessage,
  formatBatchError,
  type Issue,
  isDesigned,
  type ListQrCodesQuery,
  type QrCode,
  type QrType,
  resolveTargetUrl,
  type Style,
  type UpdateQrCode,
  withLogoLevel,
} from '@qrctl/contract'
import { checkCapacity, checkCreatable } from '@qrctl/render'
import type { Ctx } from '../../context.js'
import type { Db } from '../../db/database.js'
import { isUniqueViolation } from '../../db/errors.js'
import { type BeforeCommit, noBeforeCommit } from '../../db/unit-of-work.js'
import { AppError, conflict, invalidField, notFound, validation } from '../../errors.js'
import { addDays } from '../../lib/clock.js'
import { assertScannable, designChecker, unscannableMessage } from '../designs/designs.service.js'
import { hashPassword } from '../redirects/password.js'
import { appendEvents } from '../webhooks/webhook-outbox.js'
import type { QrCodeChanges, QrCodeRecord } from './qr-codes.repository.js'
import * as repo from './qr-codes.repository.js'
import {
  NO_REDIRECT_SETTINGS,
  patchSettings,
  redirectFieldsOf,
  requestedSettings,
  splitRedirectPatch,
} from './redirect-settings.js'

/** Deleted codes can be restored for this long, then the hourly purge removes them (spec §3). */
export const RESTORE_WINDOW_DAYS = 30

export function shortUrl(ctx: Ctx, shortCode: string): string {
  return `${ctx.config.publicBaseUrl}/r/${shortCode}`
}

/** The string a code's symbol encodes: its short link when dynamic, its encoded content when static. */
export function symbolPayload(
  ctx: Ctx,
  code: Pick<QrCodeRecord, 'type' | 'shortCode' | 'contentType' | 'content'>,
) {
  if (code.type === 'dynamic' && code.shortCode) return shortUrl(ctx, code.shortCode)
  const encoded = encodePayload(code)
  if (!encoded.ok) throw invalidField('content', encoded.message)
  return encoded.payload
}

export function toQrCode(ctx: Ctx, record: QrCodeRecord): QrCode {
  const base = `${ctx.config.publicBaseUrl}/api/v1/qr-codes/${record.id}`
  return {
    id: record.id,
    name: record.name,
    type: record.type,
    contentType: record.contentType,
    content: record.content,
    targetUrl: record.targetUrl,
    shortCode: record.shortCode,
    shortUrl: record.shortCode ? shortUrl(ctx, record.shortCode) : null,
    style: record.style,
    isActive: record.isActive,
    totalScans: record.totalScans,
    externalId: record.externalId,
    tags: record.tags,
    ...redirectFieldsOf(record),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    // Only deleted codes (listed with `deleted=true`) carry these: live ones leave them out.
    ...(record.deletedAt && {
      deletedAt: record.deletedAt,
      purgeAt: addDays(record.deletedAt, RESTORE_WINDOW_DAYS).toISOString(),
    }),
    assets: { png: `${base}/image.png`, svg: `${base}/image.svg`, pdf: `${base}/image.pdf` },
  }
}

/** 409: another live code of the account holds this externalId; the answer names it. */
const externalIdTaken = (existingId: string) => conflict(externalIdTakenMessage(existingId), { existingId })

/** The code holding `externalId`, after a write the partial unique index refused. */
async function externalIdHolder(ctx: Ctx, accountId: string, externalId: string | null | undefined) {
  if (!externalId) return undefined
  return (await repo.liveExternalIds(ctx.db, accountId, [externalId])).get(externalId)
}

/** The symbol must hold the payload at the style's error-correction level (DESIGN §5). */
function assertFits(payload: string, style: Style | null | undefined): void {
  const fit = checkCapacity(payload, style?.errorCorrectionLevel ?? 'M')
  if (!fit.ok) throw invalidField('content', fit.message)
}

export async function getQrCodeRecordOrThrow(ctx: Ctx, accountId: string, id: string): Promise<QrCodeRecord> {
  const record = await repo.findQrCode(ctx.db, accountId, id)
  if (!record) throw notFound('QR code', id)
  return record
}

export async function getQrCodeOrThrow(ctx: Ctx, accountId: string, id: string): Promise<QrCode> {
  return toQrCode(ctx, await getQrCodeRecordOrThrow(ctx, accountId, id))
}

export async function listQrCodes(ctx: Ctx, accountId: string, query: ListQrCodesQuery) {
  const { deleted, ...filters } = query
  // Deleted codes still restorable: the same window `restoreQrCode` checks.
  const deletedSince = deleted ? addDays(ctx.clock.now(), -RESTORE_WINDOW_DAYS).toISOString() : undefined
  const { records, total } = await repo.listQrCodes(ctx.db, ctx.dialect, accountId, {
    ...filters,
    deletedSince,
  })
  return { data: records.map((r) => toQrCode(ctx, r)), total, limit: query.limit, offset: query.offset }
}

/** What `checkCreatable` needs to check a dynamic code's symbol: its short link, with any code. */
export function shortLinkPlaceholder(ctx: Ctx): string {
  return shortUrl(ctx, 'xxxxxxx')
}

/** A new record for checked input (see `checkCreatable`). No short code yet. */
function newRecord(
  ctx: Ctx,
  accountId: string,
  input: CreateQrCode,
  type: QrType,
  now: string,
  passwordHash: string | null = null,
): QrCodeRecord {
  return {
    id: ctx.ids.uuid(),
    accountId,
    name: input.name,
    type,
    contentType: input.contentType,
    content: input.content,
    targetUrl: type === 'dynamic' ? resolveTargetUrl(input) : null,
    shortCode: null,
    style: input.style ?? null,
    isActive: true,
    totalScans: 0,
    externalId: input.externalId ?? null,
    tags: input.tags ?? [],
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
    ...NO_REDIRECT_SETTINGS,
    ...requestedSettings(input, passwordHash),
  }
}

/**
 * A styled dynamic code gets its short code before the decode check, so the check reads the
 * very symbol that will be stored (DESIGN §13), not one with a stand-in link.
 */
function prepareDesign(ctx: Ctx, record: QrCodeRecord): void {
  if (record.type === 'dynamic' && isDesigned(record.style)) record.shortCode = ctx.ids.shortCode()
}

/** The issues as one validation error; a single issue's message is the error's message. */
function toValidationError(issues: Issue[]) {
  const [only] = issues
  return issues.length === 1 && only ? invalidField(only.path, only.message) : validation(issues)
}

/** Gives each dynamic record a fresh short code that no stored code has. */
async function assignShortCodes(ctx: Ctx, db: Db, records: QrCodeRecord[]): Promise<void> {
  const pending = records.filter((r) => r.type === 'dynamic')
  // A styled code's short code was drawn before its decode check (see `prepareDesign`): it is
  // kept unless another code took it meanwhile.
  let isFirstPass = true
  while (pending.length > 0) {
    for (const r of pending) if (!isFirstPass || r.shortCode === null) r.shortCode = ctx.ids.shortCode()
    isFirstPass = false
    const seen = new Set<string>()
    const taken = await repo.takenShortCodes(
      db,
      pending.map((r) => r.shortCode as string),
    )
    const retry = pending.filter((r) => {
      const clash = taken.has(r.shortCode as string) || seen.has(r.shortCode as string)
      seen.add(r.shortCode as string)
      return clash
    })
    pending.splice(0, pending.length, ...retry)
  }
}

/**
 * The records whose externalId a live code of the account holds, or an earlier record of the
 * same list (the first one wins): record → the id holding it.
 */
async function refusedByExternalId(
  db: Db,
  accountId: string,
  records: readonly QrCodeRecord[],
): Promise<Map<QrCodeRecord, string>> {
  const wanted = [...new Set(records.flatMap((r) => (r.externalId === null ? [] : [r.externalId])))]
  const holders = await repo.liveExternalIds(db, accountId, wanted)
  const refused = new Map<QrCodeRecord, string>()
  for (const r of records) {
    if (r.externalId === null) continue
    const holder = holders.get(r.externalId)
    if (holder) refused.set(r, holder)
    else holders.set(r.externalId, r.id)
  }
  return refused
}

/**
 * Inserts records with fresh short codes, except those whose externalId is taken (`answer`
 * gets them with the id holding each), and hands the answer to `beforeCommit` in the same
 * transaction. A concurrent writer can still take a short code or an externalId between the
 * check and the insert; the unique indexes catch that, and the whole insert is retried,
 * checks included, so the retry sees the other writer's code.
 */
async function insertNew<T>(
  ctx: Ctx,
  accountId: string,
  records: QrCodeRecord[],
  answer: (refused: Map<QrCodeRecord, string>) => T,
  beforeCommit: BeforeCommit<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.transaction().execute(async (trx) => {
        const refused = await refusedByExternalId(trx, accountId, records)
        const fresh = records.filter((r) => !refused.has(r))
        await assignShortCodes(ctx, trx, fresh)
        await repo.insertQrCodes(trx, fresh)
        const result = answer(refused)
        await appendEvents(
          ctx,
          trx,
          fresh.map((r) => ({ accountId, type: 'qr_code.created', data: toQrCode(ctx, r), qrCodeId: r.id })),
        )
        await beforeCommit(trx, result)
        return result
      })
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= 5) throw error
    }
  }
}

export async function createQrCode(
  ctx: Ctx,
  accountId: string,
  input: CreateQrCode,
  beforeCommit: BeforeCommit<QrCode> = noBeforeCommit,
): Promise<QrCode> {
  const checked = checkCreatable(input, { shortLink: shortLinkPlaceholder(ctx) })
  if (!checked.ok) throw toValidationError(checked.issues)
  const { password } = checked.input
  const passwordHash = password ? await hashPassword(password) : null
  const record = newRecord(
    ctx,
    accountId,
    checked.input,
    checked.type,
    ctx.clock.now().toISOString(),
    passwordHash,
  )
  prepareDesign(ctx, record)
  if (isDesigned(record.style))
    await assertScannable(ctx, accountId, symbolPayload(ctx, record), record.style)
  const created = (refused: Map<QrCodeRecord, string>) => {
    const holder = refused.get(record)
    // Nothing was inserted; throwing rolls the (empty) transaction back before any answer is stored.
    if (holder) throw externalIdTaken(holder)
    return toQrCode(ctx, record)
  }
  return insertNew(ctx, accountId, [record], created, beforeCommit)
}

/**
 * Creates every valid item in one transaction; each invalid one becomes one string in
 * `errors`, prefixed with its index (DESIGN §6), and so does an item whose externalId is
 * taken. `dryRun` validates only (taken externalIds included).
 */
export async function batchCreate(
  ctx: Ctx,
  accountId: string,
  codes: unknown[],
  dryRun: boolean,
  beforeCommit: BeforeCommit<BatchResult> = noBeforeCommit,
): Promise<BatchResult> {
  if (codes.length > BATCH_MAX) throw invalidField('codes', `A batch holds at most ${BATCH_MAX} codes`)
  const now = ctx.clock.now().toISOString()
  const shortLink = shortLinkPlaceholder(ctx)
  const errors: { index: number; text: string }[] = []
  const records: QrCodeRecord[] = []
  const indexOf = new Map<QrCodeRecord, number>()
  const passwords = new Map<QrCodeRecord, string>()
  codes.forEach((item, index) => {
    const checked = checkCreatable(item, { shortLink })
    if (!checked.ok) {
      // One string per failed item (spec §4 rule 2), naming every problem it has.
      const problems = checked.issues.map((issue) =>
        formatBatchError({ index, field: issue.path, message: issue.message }),
      )
      errors.push({ index, text: problems.join('; ') })
      return
    }
    const record = newRecord(ctx, accountId, checked.input, checked.type, now)
    records.push(record)
    indexOf.set(record, index)
    if (checked.input.password) passwords.set(record, checked.input.password)
  })
  // The decode check of every styled item, all handed to the context's threads at once (each is
  // a few renders and decodes of CPU work); a design that fails is that item's error string
  // (DESIGN §13).
  const check = designChecker(ctx, accountId)
  const designed = records.filter((record) => isDesigned(record.style))
  const problems = await Promise.all(
    designed.map(async (record) => {
      prepareDesign(ctx, record)
      try {
        const verdict = await check(symbolPayload(ctx, record), record.style)
        if (!verdict.ok) return { field: 'style', message: unscannableMessage(verdict) }
      } catch (error) {
        // Another account's asset, or none: that item's 404, as its error string.
        if (!(error instanceof AppError) || error.code !== 'not_found') throw error
        return { field: 'style.logo.assetId', message: error.message }
      }
      return undefined
    }),
  )
  designed.forEach((record, i) => {
    const problem = problems[i]
    if (!problem) return
    const index = indexOf.get(record) ?? -1
    errors.push({ index, text: formatBatchError({ index, ...problem }) })
    records.splice(records.indexOf(record), 1)
  })
  const answer = (refused: Map<QrCodeRecord, string>): BatchResult => {
    const all = [...errors]
    for (const [record, holder] of refused) {
      const taken: BatchItemError = {
        index: indexOf.get(record) ?? -1,
        field: 'externalId',
        message: externalIdTakenMessage(holder),
      }
      all.push({ index: taken.index, text: formatBatchError(taken) })
    }
    all.sort((a, b) => a.index - b.index)
    const created = dryRun ? [] : records.filter((r) => !refused.has(r))
    return {
      created: created.length,
      errors: all.map((e) => e.text),
      items: created.map((r) => toQrCode(ctx, r)),
    }
  }
  if (dryRun) return answer(await refusedByExternalId(ctx.db, accountId, records))
  for (const [record, password] of passwords) record.passwordHash = await hashPassword(password)
  return insertNew(ctx, accountId, records, answer, beforeCommit)
}

/**
 * Read, check and write in one transaction (the row locked on PostgreSQL), so two PATCHes at
 * once are checked one after the other: each against what the other stored. Otherwise new
 * content and a new style could each fit alone and be stored together without fitting.
 */
export async function updateQrCode(
  ctx: Ctx,
  accountId: string,
  id: string,
  given: UpdateQrCode,
): Promise<QrCode> {
  // A logo raises the stored error-correction level (DESIGN §13), as on create.
  const patch = given.style ? { ...given, style: withLogoLevel(given.style) } : given
  // Hashed before the transaction: scrypt is slow on purpose and must not hold a connection.
  const passwordHash = patch.password ? await hashPassword(patch.password) : patch.password
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const current = await repo.findQrCodeForUpdate(trx, ctx.dialect, accountId, id)
      if (!current) throw notFound('QR code', id)
      const next = applyPatch(ctx, current, patch, passwordHash)
      if (!next) return toQrCode(ctx, current)
      // A new style or new content changes the symbol: a styled one must still scan. Checked
      // here, in the transaction, so it is the stored row's symbol that is checked.
      if ((patch.style !== undefined || patch.content !== undefined) && isDesigned(next.record.style))
        await assertScannable(ctx, accountId, symbolPayload(ctx, next.record), next.record.style, trx)
      await repo.updateQrCode(trx, next.record, next.changes)
      const updated = toQrCode(ctx, next.record)
      await appendEvents(ctx, trx, [{ accountId, type: 'qr_code.updated', data: updated, qrCodeId: id }])
      return updated
    })
  } catch (error) {
    // The partial unique index: another live code holds the new externalId.
    const holder = isUniqueViolation(error) && (await externalIdHolder(ctx, accountId, patch.externalId))
    if (holder) throw externalIdTaken(holder)
    throw error
  }
}

/** The checked result of a PATCH on `current`; undefined when it changes nothing. */
function applyPatch(
  ctx: Ctx,
  current: QrCodeRecord,
  fullPatch: UpdateQrCode,
  passwordHash: string | null | undefined,
): { record: QrCodeRecord; changes: QrCodeChanges } | undefined {
  const { base: patch, redirect } = splitRedirectPatch(fullPatch)
  const settings = patchSettings(current, redirect, passwordHash)
  if (patch.targetUrl !== undefined && current.type === 'static' && patch.targetUrl !== null) {
    throw invalidField(
      'targetUrl',
      'A static code encodes its content and has no targetUrl; only dynamic codes redirect',
    )
  }
  if (patch.targetUrl === null && current.type === 'dynamic') {
    throw invalidField(
      'targetUrl',
      'A dynamic code needs a targetUrl; set isActive to false to pause it instead',
    )
  }
  // `targetUrl: null` on a static code asks for what is already true; it changes nothing.
  const { targetUrl: _ignored, ...withoutTargetUrl } = patch
  const changes = current.type === 'static' ? withoutTargetUrl : patch
  // An empty PATCH is a no-op: the code comes back as it is, updatedAt included.
  if (Object.values(changes).every((value) => value === undefined) && Object.keys(settings).length === 0)
    return undefined
  const next = {
    ...current,
    ...changes,
    ...settings,
    style: patch.style === undefined ? current.style : patch.style,
  }
  if (patch.content !== undefined || patch.style !== undefined) {
    const encoded = encodePayload(next)
    if (!encoded.ok) throw invalidField('content', encoded.message)
    assertFits(symbolPayload(ctx, next), next.style)
  }
  const updatedAt = ctx.clock.now().toISOString()
  return {
    record: { ...next, targetUrl: next.targetUrl ?? null, updatedAt },
    changes: { ...changes, ...settings, updatedAt },
  }
}

export async function deleteQrCode(ctx: Ctx, accountId: string, id: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const code = await repo.findQrCode(trx, accountId, id)
    if (!code) throw notFound('QR code', id)
    const now = ctx.clock.now().toISOString()
    await repo.setDeletedAt(trx, accountId, id, now, now)
    const deleted = toQrCode(ctx, { ...code, deletedAt: now, updatedAt: now })
    await appendEvents(ctx, trx, [{ accountId, type: 'qr_code.deleted', data: deleted, qrCodeId: id }])
  })
}

export async function restoreQrCode(
  ctx: Ctx,
  accountId: string,
  id: string,
  beforeCommit: BeforeCommit<QrCode> = noBeforeCommit,
): Promise<QrCode> {
  let externalId: string | null = null
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const code = await repo.findDeletedQrCode(trx, accountId, id)
      const now = ctx.clock.now()
      if (!code?.deletedAt || now > addDays(code.deletedAt, RESTORE_WINDOW_DAYS))
        throw notFound('deleted QR code', id)
      externalId = code.externalId
      await repo.setDeletedAt(trx, accountId, id, null, now.toISOString())
      const restored = toQrCode(ctx, { ...code, deletedAt: null, updatedAt: now.toISOString() })
      await appendEvents(ctx, trx, [{ accountId, type: 'qr_code.restored', data: restored, qrCodeId: id }])
      await beforeCommit(trx, restored)
      return restored
    })
  } catch (error) {
    // A live code took this code's externalId while it was deleted: restoring would duplicate it.
    const holder = isUniqueViolation(error) && (await externalIdHolder(ctx, accountId, externalId))
    if (holder) throw externalIdTaken(holder)
    throw error
  }
}

/** The hourly purge: codes deleted more than 30 days ago, with their scans and showcases. */
export function purgeDeletedQrCodes(ctx: Ctx): Promise<number> {
  return repo.purgeDeletedBefore(ctx.db, addDays(ctx.clock.now(), -RESTORE_WINDOW_DAYS).toISOString())
}
