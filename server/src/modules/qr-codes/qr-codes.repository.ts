import type { ContentType, QrType, Style } from '@qrctl/contract'
import type { Selectable } from 'kysely'
import type { Db, Dialect } from '../../db/database.js'
import type { QrCodesTable } from '../../db/schema.js'
import { type RedirectSettings, redirectSettingsColumns, toRedirectSettings } from './redirect-settings.js'

/** A code as stored, before URLs are added for the response. */
export interface QrCodeRecord extends RedirectSettings {
  id: string
  accountId: string
  name: string
  type: QrType
  contentType: ContentType
  content: string
  targetUrl: string | null
  shortCode: string | null
  style: Style | null
  isActive: boolean
  totalScans: number
  externalId: string | null
  createdAt: string
  updatedAt: string
  deletedAt: string | null
}

/** The stored style column (JSON text or NULL). */
export function parseStyle(text: string | null): Style | null {
  return text ? (JSON.parse(text) as Style) : null
}

/** What drawing a code's symbol takes (see `symbolPayload` and `renderImage`). */
export type SymbolSource = Pick<
  QrCodeRecord,
  'name' | 'type' | 'shortCode' | 'contentType' | 'content' | 'style'
>

export function toQrCodeRecord(row: Selectable<QrCodesTable>): QrCodeRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    type: row.type as QrType,
    contentType: row.content_type as ContentType,
    content: row.content,
    targetUrl: row.target_url,
    shortCode: row.short_code,
    style: parseStyle(row.style),
    isActive: Boolean(row.is_active),
    totalScans: Number(row.total_scans),
    externalId: row.external_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
    ...toRedirectSettings(row),
  }
}

export async function insertQrCodes(db: Db, records: QrCodeRecord[]): Promise<void> {
  if (records.length === 0) return
  await db
    .insertInto('qr_codes')
    .values(
      records.map((r) => ({
        id: r.id,
        account_id: r.accountId,
        name: r.name,
        type: r.type,
        content_type: r.contentType,
        content: r.content,
        target_url: r.targetUrl,
        short_code: r.shortCode,
        style: r.style ? JSON.stringify(r.style) : null,
        is_active: r.isActive ? 1 : 0,
        total_scans: r.totalScans,
        external_id: r.externalId,
        created_at: r.createdAt,
        updated_at: r.updatedAt,
        deleted_at: r.deletedAt,
        ...redirectSettingsColumns(r),
      })),
    )
    .execute()
}

/** A live (not deleted) code of this account. */
export function qrCodeQuery(db: Db, accountId: string, id: string) {
  return db
    .selectFrom('qr_codes')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
}

export async function findQrCode(db: Db, accountId: string, id: string): Promise<QrCodeRecord | undefined> {
  const row = await qrCodeQuery(db, accountId, id).executeTakeFirst()
  return row && toQrCodeRecord(row)
}

/**
 * `findQrCode` inside a transaction that will write the code: PostgreSQL locks the row until
 * the transaction ends. SQLite needs no lock: a transaction holds its only writing connection.
 */
export async function findQrCodeForUpdate(
  trx: Db,
  dialect: Dialect,
  accountId: string,
  id: string,
): Promise<QrCodeRecord | undefined> {
  const query = qrCodeQuery(trx, accountId, id)
  const row = await (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst()
  return row && toQrCodeRecord(row)
}

export async function findDeletedQrCode(
  db: Db,
  accountId: string,
  id: string,
): Promise<QrCodeRecord | undefined> {
  const row = await db
    .selectFrom('qr_codes')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('deleted_at', 'is not', null)
    .executeTakeFirst()
  return row && toQrCodeRecord(row)
}

export interface QrCodeFilters {
  limit: number
  offset: number
  type?: QrType | undefined
  externalId?: string | undefined
  shortCode?: string | undefined
  /** Deleted codes instead of live ones: those deleted at or after this time, newest deletion first. */
  deletedSince?: string | undefined
}

export async function listQrCodes(
  db: Db,
  accountId: string,
  page: QrCodeFilters,
): Promise<{ records: QrCodeRecord[]; total: number }> {
  let query = db.selectFrom('qr_codes').where('account_id', '=', accountId)
  query =
    page.deletedSince === undefined
      ? query.where('deleted_at', 'is', null)
      : query.where('deleted_at', '>=', page.deletedSince)
  if (page.type) query = query.where('type', '=', page.type)
  if (page.externalId !== undefined) query = query.where('external_id', '=', page.externalId)
  if (page.shortCode !== undefined) query = query.where('short_code', '=', page.shortCode)
  const ordered =
    page.deletedSince === undefined
      ? query.selectAll().orderBy('created_at', 'desc')
      : query.selectAll().orderBy('deleted_at', 'desc')
  const [rows, count] = await Promise.all([
    ordered.orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { records: rows.map(toQrCodeRecord), total: Number(count.n) }
}

export interface QrCodeChanges extends Partial<RedirectSettings> {
  name?: string
  content?: string
  targetUrl?: string | null
  isActive?: boolean
  style?: Style | null
  externalId?: string | null
  updatedAt: string
}

export async function updateQrCode(
  db: Db,
  accountId: string,
  id: string,
  changes: QrCodeChanges,
): Promise<void> {
  await db
    .updateTable('qr_codes')
    .set({
      ...(changes.name !== undefined && { name: changes.name }),
      ...(changes.content !== undefined && { content: changes.content }),
      ...(changes.targetUrl !== undefined && { target_url: changes.targetUrl }),
      ...(changes.isActive !== undefined && { is_active: changes.isActive ? 1 : 0 }),
      ...(changes.style !== undefined && { style: changes.style ? JSON.stringify(changes.style) : null }),
      ...(changes.externalId !== undefined && { external_id: changes.externalId }),
      ...redirectSettingsColumns(changes),
      updated_at: changes.updatedAt,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute()
}

export async function setDeletedAt(
  db: Db,
  accountId: string,
  id: string,
  deletedAt: string | null,
  now: string,
) {
  await db
    .updateTable('qr_codes')
    .set({ deleted_at: deletedAt, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute()
}

/** The live codes of this account holding these externalIds: externalId → code id. */
export async function liveExternalIds(
  db: Db,
  accountId: string,
  externalIds: string[],
): Promise<Map<string, string>> {
  if (externalIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('qr_codes')
    .select(['id', 'external_id'])
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where('external_id', 'in', externalIds)
    .execute()
  return new Map(rows.map((r) => [r.external_id as string, r.id]))
}

/** Which of these short codes are taken already. */
export async function takenShortCodes(db: Db, codes: string[]): Promise<Set<string>> {
  if (codes.length === 0) return new Set()
  const rows = await db.selectFrom('qr_codes').select('short_code').where('short_code', 'in', codes).execute()
  return new Set(rows.map((r) => r.short_code as string))
}

/** Removes codes deleted before `before`; their scans and showcases go with them (ON DELETE CASCADE). */
export async function purgeDeletedBefore(db: Db, before: string): Promise<number> {
  const result = await db.deleteFrom('qr_codes').where('deleted_at', '<', before).executeTakeFirst()
  return Number(result.numDeletedRows)
}
