import type { RenderFormat } from '@qrctl/render'
import type { Ctx } from '../../context.js'
import { hasActiveSubscription } from '../accounts/accounts.policy.js'
import { renderImage } from '../images/images.service.js'
import type { SymbolSource } from '../qr-codes/qr-codes.repository.js'
import { symbolPayload } from '../qr-codes/qr-codes.service.js'
import type { ShowcaseRecord } from '../showcases/showcases.repository.js'
import * as repo from '../showcases/showcases.repository.js'
import { isSlug } from '../showcases/showcases.slugs.js'

/**
 * The showcase a public slug shows, or undefined when the page must answer 404: unknown slug,
 * showcase switched off, its code deleted, or the owner's subscription lapsed (DESIGN §9).
 */
export async function findLiveShowcase(
  ctx: Ctx,
  slug: string,
): Promise<{ showcase: ShowcaseRecord; code: SymbolSource } | undefined> {
  if (!isSlug(slug)) return undefined
  const found = await repo.findPublicShowcase(ctx.db, slug)
  if (!found) return undefined
  const { showcase, code, isCodeDeleted, account } = found
  if (!showcase.isActive || isCodeDeleted || !hasActiveSubscription(account)) return undefined
  return { showcase, code }
}

export function recordView(ctx: Ctx, showcase: ShowcaseRecord): Promise<void> {
  return repo.incrementViewCount(ctx.db, showcase.id)
}

export function recordDownload(ctx: Ctx, showcase: ShowcaseRecord): Promise<void> {
  return repo.incrementDownloadCount(ctx.db, showcase.id)
}

/** The page's QR image: the code's own symbol and style, through the shared render cache. */
export function renderShowcaseQr(
  ctx: Ctx,
  code: SymbolSource,
  format: Extract<RenderFormat, 'png' | 'svg'>,
  ifNoneMatch: string | undefined,
) {
  return renderImage(ctx, format, symbolPayload(ctx, code), code, { size: 512 }, ifNoneMatch)
}
