import type { ContentType, CtaButton, CustomColors, QrType, SocialLink, Template } from '@qrctl/contract'
import type { Selectable } from 'kysely'
import type { Db } from '../../db/database.js'
import type { ShowcasesTable } from '../../db/schema.js'
import type { Plan, SubscriptionStatus } from '../accounts/accounts.repository.js'
import { parseStyle, type SymbolSource } from '../qr-codes/qr-codes.repository.js'

/** A showcase as stored, before its public `url` is added for the response. */
export interface ShowcaseRecord {
  id: string
  accountId: string
  qrCodeId: string
  title: string
  slug: string
  description: string | null
  template: Template
  customColors: CustomColors | null
  customBackgroundUrl: string | null
  logoUrl: string | null
  socialLinks: SocialLink[] | null
  ctaButtons: CtaButton[] | null
  showBranding: boolean
  isActive: boolean
  viewCount: number
  downloadCount: number
  createdAt: string
  updatedAt: string
}

const json = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T))
const toJson = (value: unknown): string | null =>
  value === null || value === undefined ? null : JSON.stringify(value)

export function toShowcaseRecord(row: Selectable<ShowcasesTable>): ShowcaseRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    qrCodeId: row.qr_code_id,
    title: row.title,
    slug: row.slug,
    description: row.description,
    template: row.template as Template,
    customColors: json<CustomColors>(row.custom_colors),
    customBackgroundUrl: row.custom_background_url,
    logoUrl: row.logo_url,
    socialLinks: json<SocialLink[]>(row.social_links),
    ctaButtons: json<CtaButton[]>(row.cta_buttons),
    showBranding: Boolean(row.show_branding),
    isActive: Boolean(row.is_active),
    viewCount: Number(row.view_count),
    downloadCount: Number(row.download_count),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

export async function insertShowcase(db: Db, r: ShowcaseRecord): Promise<void> {
  await db
    .insertInto('showcases')
    .values({
      id: r.id,
      account_id: r.accountId,
      qr_code_id: r.qrCodeId,
      title: r.title,
      slug: r.slug,
      description: r.description,
      template: r.template,
      custom_colors: toJson(r.customColors),
      custom_background_url: r.customBackgroundUrl,
      logo_url: r.logoUrl,
      social_links: toJson(r.socialLinks),
      cta_buttons: toJson(r.ctaButtons),
      show_branding: r.showBranding ? 1 : 0,
      is_active: r.isActive ? 1 : 0,
      view_count: r.viewCount,
      download_count: r.downloadCount,
      created_at: r.createdAt,
      updated_at: r.updatedAt,
    })
    .execute()
}

/**
 * The account's showcases whose code is not deleted: a deleted code disappears from reads with
 * everything attached to it, and comes back with it on restore.
 */
function visibleShowcases(db: Db, accountId: string) {
  return db
    .selectFrom('showcases')
    .innerJoin('qr_codes', 'qr_codes.id', 'showcases.qr_code_id')
    .where('showcases.account_id', '=', accountId)
    .where('qr_codes.deleted_at', 'is', null)
}

export async function findShowcase(
  db: Db,
  accountId: string,
  id: string,
): Promise<ShowcaseRecord | undefined> {
  const row = await visibleShowcases(db, accountId)
    .selectAll('showcases')
    .where('showcases.id', '=', id)
    .executeTakeFirst()
  return row && toShowcaseRecord(row)
}

export async function listShowcases(
  db: Db,
  accountId: string,
  page: { limit: number; offset: number; qrCodeId?: string | undefined },
): Promise<{ records: ShowcaseRecord[]; total: number }> {
  let query = visibleShowcases(db, accountId)
  if (page.qrCodeId) query = query.where('showcases.qr_code_id', '=', page.qrCodeId)
  const [rows, count] = await Promise.all([
    query
      .selectAll('showcases')
      .orderBy('showcases.created_at', 'desc')
      .orderBy('showcases.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { records: rows.map(toShowcaseRecord), total: Number(count.n) }
}

export type ShowcaseChanges = Partial<
  Pick<
    ShowcaseRecord,
    | 'title'
    | 'slug'
    | 'description'
    | 'template'
    | 'customColors'
    | 'customBackgroundUrl'
    | 'logoUrl'
    | 'socialLinks'
    | 'ctaButtons'
    | 'showBranding'
    | 'isActive'
  >
> & { updatedAt: string }

export async function updateShowcase(
  db: Db,
  accountId: string,
  id: string,
  c: ShowcaseChanges,
): Promise<void> {
  await db
    .updateTable('showcases')
    .set({
      ...(c.title !== undefined && { title: c.title }),
      ...(c.slug !== undefined && { slug: c.slug }),
      ...(c.description !== undefined && { description: c.description }),
      ...(c.template !== undefined && { template: c.template }),
      ...(c.customColors !== undefined && { custom_colors: toJson(c.customColors) }),
      ...(c.customBackgroundUrl !== undefined && { custom_background_url: c.customBackgroundUrl }),
      ...(c.logoUrl !== undefined && { logo_url: c.logoUrl }),
      ...(c.socialLinks !== undefined && { social_links: toJson(c.socialLinks) }),
      ...(c.ctaButtons !== undefined && { cta_buttons: toJson(c.ctaButtons) }),
      ...(c.showBranding !== undefined && { show_branding: c.showBranding ? 1 : 0 }),
      ...(c.isActive !== undefined && { is_active: c.isActive ? 1 : 0 }),
      updated_at: c.updatedAt,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute()
}

export async function deleteShowcase(db: Db, accountId: string, id: string): Promise<number> {
  const result = await db
    .deleteFrom('showcases')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

/**
 * Stored slugs that start with `prefix`. Slugs hold only a-z, 0-9 and '-', so the prefix has
 * no LIKE wildcards to escape.
 */
export async function slugsStartingWith(db: Db, prefix: string): Promise<Set<string>> {
  const rows = await db.selectFrom('showcases').select('slug').where('slug', 'like', `${prefix}%`).execute()
  return new Set(rows.map((r) => r.slug))
}

export async function isSlugTaken(db: Db, slug: string, exceptId?: string): Promise<boolean> {
  let query = db.selectFrom('showcases').select('id').where('slug', '=', slug)
  if (exceptId) query = query.where('id', '!=', exceptId)
  return (await query.executeTakeFirst()) !== undefined
}

/** What the public page needs: the showcase, whether its code is deleted, and the owner's plan. */
export interface PublicShowcase {
  showcase: ShowcaseRecord
  /** The code the page shows, enough to draw its symbol without reading it again. */
  code: SymbolSource
  isCodeDeleted: boolean
  account: { plan: Plan; subscriptionStatus: SubscriptionStatus }
}

/** One query per page view: the showcase by slug with its code's and account's state. */
export async function findPublicShowcase(db: Db, slug: string): Promise<PublicShowcase | undefined> {
  const row = await db
    .selectFrom('showcases')
    .innerJoin('qr_codes', 'qr_codes.id', 'showcases.qr_code_id')
    .innerJoin('accounts', 'accounts.id', 'showcases.account_id')
    .selectAll('showcases')
    .select([
      'qr_codes.name as code_name',
      'qr_codes.type as code_type',
      'qr_codes.short_code as code_short_code',
      'qr_codes.content_type as code_content_type',
      'qr_codes.content as code_content',
      'qr_codes.style as code_style',
      'qr_codes.deleted_at as code_deleted_at',
      'accounts.plan as account_plan',
      'accounts.subscription_status as account_status',
    ])
    .where('showcases.slug', '=', slug)
    .executeTakeFirst()
  if (!row) return undefined
  const {
    code_name,
    code_type,
    code_short_code,
    code_content_type,
    code_content,
    code_style,
    code_deleted_at,
    account_plan,
    account_status,
    ...showcase
  } = row
  return {
    showcase: toShowcaseRecord(showcase),
    code: {
      name: code_name,
      type: code_type as QrType,
      shortCode: code_short_code,
      contentType: code_content_type as ContentType,
      content: code_content,
      style: parseStyle(code_style),
    },
    isCodeDeleted: code_deleted_at !== null,
    account: { plan: account_plan as Plan, subscriptionStatus: account_status as SubscriptionStatus },
  }
}

export async function incrementViewCount(db: Db, id: string): Promise<void> {
  await db
    .updateTable('showcases')
    .set((eb) => ({ view_count: eb('view_count', '+', 1) }))
    .where('id', '=', id)
    .execute()
}

export async function incrementDownloadCount(db: Db, id: string): Promise<void> {
  await db
    .updateTable('showcases')
    .set((eb) => ({ download_count: eb('download_count', '+', 1) }))
    .where('id', '=', id)
    .execute()
}
