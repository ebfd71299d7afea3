import type { ContentType, ListSort, QrType, Style } from '@qrctl/contract'
import { type Selectable, type SelectQueryBuilder, sql } from 'kysely'
import type { Db, Dialect } from '../../db/database.js'
import type { Database, QrCodesTable } from '../../db/schema.js'
import {
  countTagged,
  replaceTagRows,
  setTagRowsDeletedAt,
  setTagRowsSearchText,
  tagCondition,
  taggedCodes,
} from './qr-code-tags.repository.js'
import { containsCondition, foldCase, nameKey, SORT_COLUMNS, searchText } from './qr-codes.search.js'
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
  /** Distinct, normalised, in code-point order. */
  tags: string[]
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
    tags: JSON.parse(row.tags) as string[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
    ...toRedirectSettings(row),
  }
}

export async function insertQrCodes(db: Db, records: QrCodeRecord[]): Promise<void> {
  if (records.length === 0) return
  const searched = records.map((r) => ({ ...r, searchText: searchText(r) }))
  await db
    .insertInto('qr_codes')
    .values(
      searched.map((r) => ({
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
        tags: JSON.stringify(r.tags),
        search_text: r.searchText,
        name_key: nameKey(r.name),
        ...redirectSettingsColumns(r),
      })),
    )
    .execute()
  await replaceTagRows(db, searched)
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
/** A code by id alone, deleted or not (the account comes with it). */
export async function findQrCodeById(db: Db, id: string): Promise<QrCodeRecord | undefined> {
  const row = await db.selectFrom('qr_codes').selectAll().where('id', '=', id).executeTakeFirst()
  return row && toQrCodeRecord(row)
}

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
  /** Codes with every one of these tags. */
  tag?: string[] | undefined
  /** A case-insensitive substring of name, content, targetUrl, shortCode or externalId. */
  search?: string | undefined
  isActive?: boolean | undefined
  sort?: ListSort | undefined
  /** Deleted codes instead of live ones: those deleted at or after this time, newest deletion first. */
  deletedSince?: string | undefined
}

export async function listQrCodes(
  db: Db,
  dialect: Dialect,
  accountId: string,
  page: QrCodeFilters,
): Promise<{ records: QrCodeRecord[]; total: number }> {
  // SQLite has no statistics, so it would reach an account's codes through an account index and
  // test each one against a tag or a search: all 100,000 rows when few match. Driven, the query
  // starts from the tag or search index instead (`+column` keeps it off the other indexes).
  const drivable = dialect === 'sqlite' && (Boolean(page.tag?.length) || page.search !== undefined)
  const filtered = (driven: boolean) => {
    const column = <T>(name: 'account_id' | 'deleted_at') =>
      driven ? sql<T>`+${sql.ref(name)}` : sql.ref<T>(name)
    let query = db.selectFrom('qr_codes').where(column<string>('account_id'), '=', accountId)
    query =
      page.deletedSince === undefined
        ? query.where(column<string | null>('deleted_at'), 'is', null)
        : query.where(column<string | null>('deleted_at'), '>=', page.deletedSince)
    if (page.type) query = query.where('type', '=', page.type)
    if (page.externalId !== undefined) query = query.where('external_id', '=', page.externalId)
    if (page.shortCode !== undefined) query = query.where('short_code', '=', page.shortCode)
    if (page.isActive !== undefined) query = query.where('is_active', '=', page.isActive ? 1 : 0)
    // Driven by tags and a search alone: the codes the tag rows list, text tested on their copies
    // (`tag=restaurant:43&search=table`: 334 tag rows, where the trigram index offered 66,000).
    if (driven && tags)
      return query.where(
        'qr_codes.id',
        'in',
        taggedCodes(db, dialect, accountId, tags, page.deletedSince, page.search),
      )
    if (page.tag?.length) query = query.where(tagCondition(db, dialect, accountId, page.tag, driven))
    if (page.search !== undefined) query = query.where(searchCondition(dialect, page.search, driven))
    return query
  }
  const tags = onlyTags(page)
  const short = shortTerm(dialect, page)
  const texts =
    short === undefined ? undefined : await shortTermMatches(db, accountId, page.deletedSince, short)
  if (Array.isArray(texts)) {
    const rows =
      texts.length === 0
        ? []
        : await orderList(db.selectFrom('qr_codes').selectAll().where('id', 'in', texts), false, page)
            .limit(page.limit)
            .offset(page.offset)
            .execute()
    return { records: rows.map(toQrCodeRecord), total: texts.length }
  }
  const total = texts
    ? texts.total
    : tags
      ? await countTagged(db, dialect, accountId, tags, page.deletedSince, page.search)
      : Number(
          (
            await filtered(drivable)
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        )
  // Few matches: start from them and sort them. Many: walk the sort index, which meets enough
  // matches for a page within a few rows.
  const driven = drivable && total <= DRIVEN_MAX
  const rows = await orderList(filtered(driven).selectAll(), driven, page)
    .limit(page.limit)
    .offset(page.offset)
    .execute()
  return { records: rows.map(toQrCodeRecord), total }
}

/**
 * The tags of a filter on tags, and perhaps a search, whose total the tag rows answer without the
 * codes (they carry the codes' `deleted_at` and search text): the tag's rows are read in order,
 * a few tenths of a µs each, where testing the text on each code would visit rows spread over the
 * whole qr_codes table (`tag=vip&search=table 1`, 19,903 tagged codes: docs/performance.md).
 */
function onlyTags(page: QrCodeFilters): [string, ...string[]] | undefined {
  const [first, ...others] = page.tag ?? []
  const otherFilters = [page.type, page.externalId, page.shortCode, page.isActive]
  if (first === undefined || otherFilters.some((value) => value !== undefined)) return undefined
  return [first, ...others]
}

/** A search of 1 or 2 characters alone, on PostgreSQL (see shortTermMatches). */
function shortTerm(dialect: Dialect, page: QrCodeFilters): string | undefined {
  if (dialect !== 'postgres' || page.search === undefined || [...foldCase(page.search)].length >= 3)
    return undefined
  const otherFilters = [page.type, page.externalId, page.shortCode, page.isActive, page.tag]
  return otherFilters.every((value) => value === undefined) ? page.search : undefined
}

/**
 * The ids of the codes containing a term of 1 or 2 characters, when there are at most DRIVEN_MAX,
 * else their number. pg_trgm finds no trigram in `%zz%`; the gram index of `qr_code_texts`
 * (migration 2026_11_28_1200) lists the codes holding the term (`zz`: 147 of 100,000, 0.2 ms),
 * whose page is then sorted from their ids. A common gram is found sooner by scanning
 * `qr_code_texts` (a third of qr_codes' pages), which stops after DRIVEN_MAX + 1 matches. More
 * than DRIVEN_MAX matches are counted by one scan of `qr_code_texts`, the page walking the sort
 * index as before.
 */
async function shortTermMatches(
  db: Db,
  accountId: string,
  deletedSince: string | undefined,
  term: string,
): Promise<string[] | { total: number }> {
  const texts = (trx: Db) => {
    const query = trx
      .selectFrom('qr_code_texts')
      .where('account_id', '=', accountId)
      .where(containsCondition('postgres', 'search_text', term))
    return deletedSince === undefined
      ? query.where('deleted_at', 'is', null)
      : query.where('deleted_at', '>=', deletedSince)
  }
  const scan = async (trx: Db) => {
    const rows = await texts(trx)
      .select('qr_code_id')
      .limit(DRIVEN_MAX + 1)
      .execute()
    return rows.map((row) => row.qr_code_id)
  }
  const gram = foldCase(term)
  const probe = async (trx: Db) =>
    (await readGramIndex(trx, gram)) ? gramMatches(trx, accountId, deletedSince, gram) : scan(trx)
  // Inside a caller's transaction, `set local` (see readGramIndex) would outlast this query.
  const few = await (db.isTransaction ? scan(db) : db.transaction().execute(probe))
  if (few.length <= DRIVEN_MAX) return few
  const row = await texts(db)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return { total: Number(row.n) }
}

/**
 * Whether the gram index or a scan finds a gram's first DRIVEN_MAX + 1 codes sooner, from the
 * statistics ANALYZE keeps of the index (the frequency f of each common gram; a gram not listed
 * is rarer than all listed). The index lists every code holding the gram, f × N entries at ~85 ns;
 * a scan reads about (DRIVEN_MAX + 1) / f rows at ~0.4 µs (measured at 100,000 codes: `e`, in
 * every code, 9 ms from the index against 1–2 ms scanning): the index wins while f² × N < ~4,000.
 * When it does, sequential scans are turned off for the rest of the transaction (see gramMatches),
 * in the same statement.
 */
async function readGramIndex(trx: Db, gram: string): Promise<boolean> {
  const { rows } = await sql<{ setting: string }>`select set_config('enable_seqscan',
      case when coalesce((
        select s.most_common_elem_freqs[array_position(s.most_common_elems::text::text[], ${gram}::text)]
        from pg_stats s
        where s.schemaname = current_schema() and s.tablename = 'qr_code_texts_grams_idx'
      ), 0) ^ 2 * (
        select greatest(c.reltuples, 0) from pg_class c
        where c.oid = to_regclass(quote_ident(current_schema()) || '.qr_code_texts')
      ) < 4000 then 'off' else current_setting('enable_seqscan') end, true) as setting`.execute(trx)
  return rows[0]?.setting === 'off'
}

/**
 * Up to DRIVEN_MAX + 1 codes of the account whose search text holds `gram` (1 or 2 characters,
 * folded), from the gram index alone: its keys are exact, so no row's text is tested. The plan is
 * fixed (sequential scans off, see readGramIndex): left to choose, PostgreSQL may scan the table,
 * calling the gram function on each row, 20–40 µs apiece (35–77 ms for 1,001 matches of a common
 * gram, measured). The index is read in a subquery of its own (`offset 0`), which leaves the
 * account's index out of the choice; the account and deletion are tested on the rows it lists.
 */
async function gramMatches(
  trx: Db,
  accountId: string,
  deletedSince: string | undefined,
  gram: string,
): Promise<string[]> {
  const holding = trx
    .selectFrom('qr_code_texts')
    .select(['qr_code_id', 'account_id', 'deleted_at'])
    .where(sql<boolean>`qr_code_search_grams(search_text) @> array[${gram}::text]`)
    .offset(0)
    .as('holding')
  let query = trx.selectFrom(holding).select('qr_code_id').where('account_id', '=', accountId)
  query =
    deletedSince === undefined
      ? query.where('deleted_at', 'is', null)
      : query.where('deleted_at', '>=', deletedSince)
  const rows = await query.limit(DRIVEN_MAX + 1).execute()
  return rows.map((row) => row.qr_code_id)
}

/**
 * Up to this many matches, sorting them beats walking a sort index in search of them (a walk
 * meets a page's 20 matches within 20 × codes ÷ matches rows, one key probe each).
 */
const DRIVEN_MAX = 1000

/**
 * A case-insensitive substring of the searchable fields; user input is a bound parameter, and
 * never a wildcard. PostgreSQL: `LIKE` with `%`, `_` and `\` escaped, served by the trigram
 * index. SQLite: `instr` (no wildcards at all), which alone decides; a driven query (see
 * listQrCodes) starts from the rows an index offers: the FTS5 trigram index for 3 characters or
 * more, the index of 1- and 2-character grams for fewer (docs/performance.md). A query walking a
 * sort index tests `instr` on the rows it meets: the candidates' list would cost more to build
 * (18,332 rowids for `table 1`, 19 ms) than the walk (0.8 ms).
 */
function searchCondition(dialect: Dialect, term: string, driven: boolean) {
  const found = containsCondition(dialect, 'search_text', term)
  if (dialect === 'postgres' || !driven) return found
  const folded = foldCase(term)
  const candidates =
    [...folded].length >= 3
      ? sql`select rowid from qr_codes_fts where qr_codes_fts match ${trigramQuery(folded)}`
      : sql`select rowid from qr_codes_grams where qr_codes_grams match ${`"${gramToken(folded)}"`}`
  return sql<boolean>`qr_codes.rowid in (${candidates}) and ${found}`
}

/**
 * An FTS5 query for rows holding every one of a few trigrams of `term` (3 characters or more):
 * those starting every third character, and the last. A superset of the rows containing `term`
 * (`instr` decides), read without positions: the phrase of all its trigrams read every trigram's
 * positions (`table 1`: 27 ms for the phrase, 12 ms for `tab`, `le `, `e 1`; `restaurant 217`:
 * 12 ms, 4.7 ms).
 */
function trigramQuery(term: string): string {
  const chars = [...term]
  const starts = new Set<number>()
  for (let i = 0; i + 3 <= chars.length; i += 3) starts.add(i)
  starts.add(chars.length - 3)
  const quoted = (i: number) => {
    const trigram = chars.slice(i, i + 3).join('')
    return `"${trigram.replaceAll('"', '""')}"`
  }
  return [...starts].map(quoted).join(' AND ')
}

/** A 1- or 2-character gram as `qr_codes_grams` holds it: the hex of its UTF-8 bytes. */
function gramToken(gram: string): string {
  return Buffer.from(gram, 'utf8').toString('hex').toUpperCase()
}

/**
 * The list's order (DESIGN §17): ties by id ascending, except the v1 default (`-createdAt`),
 * whose ties stay id descending as v1 answered them. Deleted codes default to newest deletion.
 */
function orderList<O>(
  query: SelectQueryBuilder<Database, 'qr_codes', O>,
  driven: boolean,
  page: Pick<QrCodeFilters, 'sort' | 'deletedSince'>,
): SelectQueryBuilder<Database, 'qr_codes', O> {
  if (page.sort === undefined && page.deletedSince !== undefined)
    return query.orderBy('deleted_at', 'desc').orderBy('id', 'desc')
  const sort = page.sort ?? '-createdAt'
  const [column, direction] = SORT_COLUMNS[sort]
  const ties = sort === '-createdAt' ? 'desc' : 'asc'
  // `+column` keeps a driven query (see listQrCodes) off the sort indexes: it sorts its matches.
  if (driven) return query.orderBy(sql`+${sql.ref(column)}`, direction).orderBy(sql`+${sql.ref('id')}`, ties)
  return query.orderBy(column, direction).orderBy('id', ties)
}

export interface QrCodeChanges extends Partial<RedirectSettings> {
  name?: string
  content?: string
  targetUrl?: string | null
  isActive?: boolean
  style?: Style | null
  externalId?: string | null
  tags?: string[]
  updatedAt: string
}

const SEARCHED: (keyof QrCodeChanges)[] = ['name', 'content', 'targetUrl', 'externalId']

/** Writes `changes` to the code; `next` is the code after them (for the derived search columns). */
export async function updateQrCode(
  db: Db,
  next: Pick<QrCodeRecord, 'id' | 'accountId' | 'tags' | 'deletedAt'> & Parameters<typeof searchText>[0],
  changes: QrCodeChanges,
): Promise<void> {
  const searched = SEARCHED.some((key) => changes[key] !== undefined)
  const text = searchText(next)
  await db
    .updateTable('qr_codes')
    .set({
      ...(changes.name !== undefined && { name: changes.name, name_key: nameKey(changes.name) }),
      ...(changes.content !== undefined && { content: changes.content }),
      ...(changes.targetUrl !== undefined && { target_url: changes.targetUrl }),
      ...(changes.isActive !== undefined && { is_active: changes.isActive ? 1 : 0 }),
      ...(changes.style !== undefined && { style: changes.style ? JSON.stringify(changes.style) : null }),
      ...(changes.externalId !== undefined && { external_id: changes.externalId }),
      ...(changes.tags !== undefined && { tags: JSON.stringify(changes.tags) }),
      ...(searched && { search_text: text }),
      ...redirectSettingsColumns(changes),
      updated_at: changes.updatedAt,
    })
    .where('account_id', '=', next.accountId)
    .where('id', '=', next.id)
    .execute()
  // The tag rows carry the code's search text (see replaceTagRows).
  if (changes.tags !== undefined) await replaceTagRows(db, [{ ...next, searchText: text }])
  else if (searched) await setTagRowsSearchText(db, next.id, text)
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
  await setTagRowsDeletedAt(db, id, deletedAt)
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

/**
 * The codes of this account with these ids, deleted ones included, locked for the rest of the
 * transaction on PostgreSQL (in id order, so two bulk requests never wait on each other in a circle).
 */
export async function findQrCodesForUpdate(
  trx: Db,
  dialect: Dialect,
  accountId: string,
  ids: readonly string[],
): Promise<QrCodeRecord[]> {
  if (ids.length === 0) return []
  const query = trx
    .selectFrom('qr_codes')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', 'in', [...ids])
    .orderBy('id')
  const rows = await (dialect === 'postgres' ? query.forUpdate() : query).execute()
  return rows.map(toQrCodeRecord)
}
