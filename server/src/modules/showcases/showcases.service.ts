import type { CreateShowcase, ListShowcasesQuery, Showcase, UpdateShowcase } from '@qrctl/contract'
import type { Ctx } from '../../context.js'
import type { Db } from '../../db/database.js'
import { isUniqueViolation } from '../../db/errors.js'
import { type BeforeCommit, noBeforeCommit } from '../../db/unit-of-work.js'
import { conflict, notFound } from '../../errors.js'
import { getQrCodeRecordOrThrow } from '../qr-codes/qr-codes.service.js'
import { appendEvents } from '../webhooks/webhook-outbox.js'
import type { ShowcaseRecord } from './showcases.repository.js'
import * as repo from './showcases.repository.js'
import { candidatePrefix, firstFreeSlug, slugify } from './showcases.slugs.js'

/** The public landing page of a slug (DESIGN §9). */
export function showcaseUrl(ctx: Ctx, slug: string): string {
  return `${ctx.config.publicBaseUrl}/s/${slug}`
}

export function toShowcase(ctx: Ctx, r: ShowcaseRecord): Showcase {
  return {
    id: r.id,
    qrCodeId: r.qrCodeId,
    title: r.title,
    slug: r.slug,
    description: r.description,
    template: r.template,
    customColors: r.customColors,
    customBackgroundUrl: r.customBackgroundUrl,
    logoUrl: r.logoUrl,
    socialLinks: r.socialLinks,
    ctaButtons: r.ctaButtons,
    showBranding: r.showBranding,
    isActive: r.isActive,
    viewCount: r.viewCount,
    downloadCount: r.downloadCount,
    createdAt: r.createdAt,
    url: showcaseUrl(ctx, r.slug),
  }
}

const slugTaken = (slug: string) =>
  conflict(`The slug '${slug}' is taken; choose another or omit it to derive one from the title`, {
    slug,
  })

export async function getShowcaseRecordOrThrow(ctx: Ctx, accountId: string, id: string) {
  const record = await repo.findShowcase(ctx.db, accountId, id)
  if (!record) throw notFound('showcase', id)
  return record
}

export async function getShowcaseOrThrow(ctx: Ctx, accountId: string, id: string): Promise<Showcase> {
  return toShowcase(ctx, await getShowcaseRecordOrThrow(ctx, accountId, id))
}

export async function listShowcases(ctx: Ctx, accountId: string, query: ListShowcasesQuery) {
  const { records, total } = await repo.listShowcases(ctx.db, accountId, query)
  return { data: records.map((r) => toShowcase(ctx, r)), total, limit: query.limit, offset: query.offset }
}

/** A derived slug: the title's, with -2, -3 … when stored showcases have it already. */
async function deriveSlug(db: Db, title: string): Promise<string> {
  const base = slugify(title)
  return firstFreeSlug(base, await repo.slugsStartingWith(db, candidatePrefix(base)))
}

/**
 * Inserts with the given slug (409 when taken) or a derived one. Two concurrent creates can
 * derive the same slug; the unique index stops the second, which derives again.
 */
export async function createShowcase(
  ctx: Ctx,
  accountId: string,
  input: CreateShowcase,
  beforeCommit: BeforeCommit<Showcase> = noBeforeCommit,
): Promise<Showcase> {
  await getQrCodeRecordOrThrow(ctx, accountId, input.qrCodeId)
  const now = ctx.clock.now().toISOString()
  const record: ShowcaseRecord = {
    id: ctx.ids.uuid(),
    accountId,
    qrCodeId: input.qrCodeId,
    title: input.title,
    slug: input.slug ?? '',
    description: input.description ?? null,
    template: input.template,
    customColors: input.customColors ?? null,
    customBackgroundUrl: input.customBackgroundUrl ?? null,
    logoUrl: input.logoUrl ?? null,
    socialLinks: null,
    ctaButtons: null,
    showBranding: input.showBranding,
    isActive: true,
    viewCount: 0,
    downloadCount: 0,
    createdAt: now,
    updatedAt: now,
  }
  for (let attempt = 1; ; attempt++) {
    if (!input.slug) record.slug = await deriveSlug(ctx.db, input.title)
    try {
      return await ctx.db.transaction().execute(async (trx) => {
        await repo.insertShowcase(trx, record)
        const showcase = toShowcase(ctx, record)
        await appendEvents(ctx, trx, [
          { accountId, type: 'showcase.created', data: showcase, qrCodeId: showcase.qrCodeId },
        ])
        await beforeCommit(trx, showcase)
        return showcase
      })
    } catch (error) {
      if (!isUniqueViolation(error)) throw error
      if (input.slug) throw slugTaken(input.slug)
      if (attempt >= 5) throw error
    }
  }
}

export async function updateShowcase(
  ctx: Ctx,
  accountId: string,
  id: string,
  patch: UpdateShowcase,
): Promise<Showcase> {
  const current = await getShowcaseRecordOrThrow(ctx, accountId, id)
  if (patch.slug !== undefined && patch.slug !== current.slug) {
    if (await repo.isSlugTaken(ctx.db, patch.slug, id)) throw slugTaken(patch.slug)
  }
  const updatedAt = ctx.clock.now().toISOString()
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      await repo.updateShowcase(trx, accountId, id, { ...patch, updatedAt })
      const record = await repo.findShowcase(trx, accountId, id)
      if (!record) throw notFound('showcase', id)
      const showcase = toShowcase(ctx, record)
      await appendEvents(ctx, trx, [
        { accountId, type: 'showcase.updated', data: showcase, qrCodeId: showcase.qrCodeId },
      ])
      return showcase
    })
  } catch (error) {
    // Another request took the slug between the check and the update.
    if (isUniqueViolation(error) && patch.slug !== undefined) throw slugTaken(patch.slug)
    throw error
  }
}

/** A hard delete: the page answers 404 from then on, and the slug is free again. */
export async function deleteShowcase(ctx: Ctx, accountId: string, id: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const record = await repo.findShowcase(trx, accountId, id)
    if (!record) throw notFound('showcase', id)
    await repo.deleteShowcase(trx, accountId, id)
    const showcase = toShowcase(ctx, record)
    await appendEvents(ctx, trx, [
      { accountId, type: 'showcase.deleted', data: showcase, qrCodeId: showcase.qrCodeId },
    ])
  })
}
