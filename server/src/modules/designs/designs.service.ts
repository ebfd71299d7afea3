import { type DecodeCheck, isDesigned, type Style } from '@qrctl/contract'
import { styleDrawingIssues } from '@qrctl/render'
import type { Ctx } from '../../context.js'
import type { Db } from '../../db/database.js'
import { AppError, notFound, validation } from '../../errors.js'
import { findAssetPng, findAssetPngById } from '../assets/assets.repository.js'

/**
 * 400 `unscannable` (DESIGN §10, §13): a styled code's renders did not all decode to its payload.
 * `details.checks` lists every render and decoder, so the caller sees which size failed where.
 */
export const unscannable = (verdict: FailedDesign) =>
  new AppError(
    'unscannable',
    verdict.reason ??
      `This design does not scan reliably: ${failedRenders(verdict.checks)} could not read it. Raise the contrast, use square finders, a larger margin or a smaller logo`,
    { checks: verdict.checks },
  )

function failedRenders(checks: DecodeCheck[]): string {
  return checks
    .filter((c) => !c.ok)
    .map((c) => `${c.decoder} at ${c.size} px`)
    .join(', ')
}

/** One line for a batch item's error string: which renders failed. */
export function unscannableMessage(verdict: FailedDesign): string {
  return `unscannable: ${verdict.reason ?? `the design failed the decode check (${failedRenders(verdict.checks)})`}`
}

export interface FailedDesign {
  ok: false
  checks: DecodeCheck[]
  /** Set when nothing could be rendered scannably at all (a logo over a finder). */
  reason?: string | undefined
}
export type DesignVerdict = { ok: true } | FailedDesign

/** The stored PNG of a style's logo in the account; 404 when the account has no such asset. */
async function logoOf(db: Db, accountId: string, style: Style): Promise<Buffer | undefined> {
  if (!style.logo) return undefined
  const png = await findAssetPng(db, accountId, style.logo.assetId)
  if (!png) throw notFound('asset', style.logo.assetId)
  return png
}

const logoCache = new Map<string, Buffer>()

/**
 * The logo of a saved style, for drawing it. Assets never change and cannot be deleted while a
 * style uses them, so the bytes are kept (the most recent 64).
 */
export async function savedLogo(ctx: Ctx, style: Style | null | undefined): Promise<Buffer | undefined> {
  const id = style?.logo?.assetId
  if (!id) return undefined
  const cached = logoCache.get(id)
  if (cached) return cached
  const png = await findAssetPngById(ctx.db, id)
  if (!png) return undefined
  logoCache.set(id, png)
  if (logoCache.size > 64) logoCache.delete(logoCache.keys().next().value as string)
  return png
}

/** The decode check of one style, for a code encoding `payload` (see `designChecker`). */
export type DesignCheck = (payload: string, style: Style | null | undefined) => Promise<DesignVerdict>

/**
 * Decode checks of styles about to be saved in `accountId`, run on the context's threads. A v1
 * style (no §13 key) needs none: its plain squares always scan. Frame text the font cannot draw
 * is a validation error (thrown), checked before anything is rendered. Each logo is read once
 * however many styles use it (a batch's items often share one).
 */
export function designChecker(
  ctx: Ctx,
  accountId: string,
  /** The transaction the caller holds, if any: SQLite has one connection, so reads must use it. */
  db: Db = ctx.db,
): DesignCheck {
  const logos = new Map<string, Promise<Buffer | undefined>>()
  const logo = (style: Style) => {
    const id = style.logo?.assetId
    if (!id) return undefined
    let read = logos.get(id)
    if (!read) {
      read = logoOf(db, accountId, style)
      logos.set(id, read)
    }
    return read
  }
  return async (payload, style) => {
    if (!isDesigned(style) || !style) return { ok: true }
    const drawing = styleDrawingIssues(style)
    if (drawing.length > 0) throw validation(drawing, drawing[0]?.message)
    const result = await ctx.checks.check(payload, style, await logo(style))
    return result.ok ? { ok: true } : { ok: false, checks: result.checks, reason: result.reason }
  }
}

/** The decode check of one style about to be saved (`designChecker` for a single code). */
export function checkDesign(
  ctx: Ctx,
  accountId: string,
  payload: string,
  style: Style | null | undefined,
  db: Db = ctx.db,
): Promise<DesignVerdict> {
  return designChecker(ctx, accountId, db)(payload, style)
}

/** `checkDesign`, throwing 400 `unscannable` when the design fails. */
export async function assertScannable(
  ctx: Ctx,
  accountId: string,
  payload: string,
  style: Style | null | undefined,
  db: Db = ctx.db,
): Promise<void> {
  const verdict = await checkDesign(ctx, accountId, payload, style, db)
  if (!verdict.ok) throw unscannable(verdict)
}
