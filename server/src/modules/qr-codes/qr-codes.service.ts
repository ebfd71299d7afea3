import {
  BATCH_MAX,
  type BatchResult,
  CreateQrCode,
  encodePayload,
  type ListQrCodesQuery,
  type QrCode,
  resolveTargetUrl,
  resolveType,
  type Style,
  toIssues,
  type UpdateQrCode,
} from '@qrctl/contract'
import { checkCapacity } from '@qrctl/render'
import type { Ctx } from '../../context.js'
import type { Db } from '../../db/database.js'
import { isUniqueViolation } from '../../db/errors.js'
import { type BeforeCommit, noBeforeCommit } from '../../db/unit-of-work.js'
import { AppError, invalidField, notFound } from '../../errors.js'
import { addDays } from '../../lib/clock.js'
import type { QrCodeRecord } from './qr-codes.repository.js'
import * as repo from './qr-codes.repository.js'

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
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    assets: { png: `${base}/image.png`, svg: `${base}/image.svg`, pdf: `${base}/image.pdf` },
  }
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
  const { records, total } = await repo.listQrCodes(ctx.db, accountId, query)
  return { data: records.map((r) => toQrCode(ctx, r)), total, limit: query.limit, offset: query.offset }
}

/** A new record for valid input: type and target resolved, capacity checked. No short code yet. */
function newRecord(ctx: Ctx, accountId: string, input: CreateQrCode, now: string): QrCodeRecord {
  const type = resolveType(input)
  const record: QrCodeRecord = {
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
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  }
  // A dynamic code's symbol is its short link, which always fits; check with a placeholder code.
  assertFits(
    symbolPayload(ctx, { ...record, shortCode: type === 'dynamic' ? 'xxxxxxx' : null }),
    record.style,
  )
  return record
}

/** Gives each dynamic record a fresh short code that no stored code has. */
async function assignShortCodes(ctx: Ctx, db: Db, records: QrCodeRecord[]): Promise<void> {
  const pending = records.filter((r) => r.type === 'dynamic')
  while (pending.length > 0) {
    for (const r of pending) r.shortCode = ctx.ids.shortCode()
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
 * Inserts records with fresh short codes. A concurrent writer can still take a code between
 * the check and the insert; the unique index catches that and the whole insert is retried.
 */
async function insertWithShortCodes<T>(
  ctx: Ctx,
  records: QrCodeRecord[],
  result: () => T,
  beforeCommit: BeforeCommit<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.transaction().execute(async (trx) => {
        await assignShortCodes(ctx, trx, records)
        await repo.insertQrCodes(trx, records)
        const answer = result()
        await beforeCommit(trx, answer)
        return answer
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
  const record = newRecord(ctx, accountId, input, ctx.clock.now().toISOString())
  return insertWithShortCodes(ctx, [record], () => toQrCode(ctx, record), beforeCommit)
}

/**
 * Creates every valid item in one transaction; each invalid one becomes one string in
 * `errors`, prefixed with its index (DESIGN §6). `dryRun` validates only.
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
  const errors: string[] = []
  const records: QrCodeRecord[] = []
  codes.forEach((item, index) => {
    const parsed = CreateQrCode.safeParse(item)
    if (!parsed.success) {
      // One string per failed item (spec §4 rule 2), naming every problem it has.
      const problems = toIssues(parsed.error).map(
        (issue) => `codes[${index}]${issue.path ? `.${issue.path}` : ''}: ${issue.message}`,
      )
      errors.push(problems.join('; '))
      return
    }
    try {
      records.push(newRecord(ctx, accountId, parsed.data, now))
    } catch (error) {
      if (!(error instanceof AppError)) throw error
      errors.push(`codes[${index}].content: ${error.message}`)
    }
  })
  if (dryRun) return { created: 0, errors, items: [] }
  return insertWithShortCodes(
    ctx,
    records,
    () => ({ created: records.length, errors, items: records.map((r) => toQrCode(ctx, r)) }),
    beforeCommit,
  )
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
  patch: UpdateQrCode,
): Promise<QrCode> {
  return ctx.db.transaction().execute(async (trx) => {
    const current = await repo.findQrCodeForUpdate(trx, ctx.dialect, accountId, id)
    if (!current) throw notFound('QR code', id)
    const next = applyPatch(ctx, current, patch)
    if (!next) return toQrCode(ctx, current)
    await repo.updateQrCode(trx, accountId, id, next.changes)
    return toQrCode(ctx, next.record)
  })
}

/** The checked result of a PATCH on `current`; undefined when it changes nothing. */
function applyPatch(
  ctx: Ctx,
  current: QrCodeRecord,
  patch: UpdateQrCode,
): { record: QrCodeRecord; changes: UpdateQrCode & { updatedAt: string } } | undefined {
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
  const changes: UpdateQrCode = current.type === 'static' ? withoutTargetUrl : patch
  // An empty PATCH is a no-op: the code comes back as it is, updatedAt included.
  if (Object.values(changes).every((value) => value === undefined)) return undefined
  const next = { ...current, ...changes, style: patch.style === undefined ? current.style : patch.style }
  if (patch.content !== undefined || patch.style !== undefined) {
    const encoded = encodePayload(next)
    if (!encoded.ok) throw invalidField('content', encoded.message)
    assertFits(symbolPayload(ctx, next), next.style)
  }
  const updatedAt = ctx.clock.now().toISOString()
  return {
    record: { ...next, targetUrl: next.targetUrl ?? null, updatedAt },
    changes: { ...changes, updatedAt },
  }
}

export async function deleteQrCode(ctx: Ctx, accountId: string, id: string): Promise<void> {
  await getQrCodeRecordOrThrow(ctx, accountId, id)
  const now = ctx.clock.now().toISOString()
  await repo.setDeletedAt(ctx.db, accountId, id, now, now)
}

export async function restoreQrCode(
  ctx: Ctx,
  accountId: string,
  id: string,
  beforeCommit: BeforeCommit<QrCode> = noBeforeCommit,
): Promise<QrCode> {
  return ctx.db.transaction().execute(async (trx) => {
    const code = await repo.findDeletedQrCode(trx, accountId, id)
    const now = ctx.clock.now()
    if (!code?.deletedAt || now > addDays(code.deletedAt, RESTORE_WINDOW_DAYS))
      throw notFound('deleted QR code', id)
    await repo.setDeletedAt(trx, accountId, id, null, now.toISOString())
    const restored = toQrCode(ctx, { ...code, deletedAt: null, updatedAt: now.toISOString() })
    await beforeCommit(trx, restored)
    return restored
  })
}

/** The hourly purge: codes deleted more than 30 days ago, with their scans and showcases. */
export function purgeDeletedQrCodes(ctx: Ctx): Promise<number> {
  return repo.purgeDeletedBefore(ctx.db, addDays(ctx.clock.now(), -RESTORE_WINDOW_DAYS).toISOString())
}
