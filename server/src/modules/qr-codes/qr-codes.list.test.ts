import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type DatabaseHandle, migrateToLatest } from '../../db/database.js'
import { testDialects as dialects, openTestDatabase } from '../../testing/fixtures.js'
import { insertQrCodes, listQrCodes, type QrCodeFilters, type QrCodeRecord } from './qr-codes.repository.js'
import { searchText } from './qr-codes.search.js'
import { NO_REDIRECT_SETTINGS } from './redirect-settings.js'

/**
 * The list takes one of two plans by the number of matches (listQrCodes: SQLite starts from the
 * tag or search index and sorts, or walks the sort index; PostgreSQL sorts the few codes holding
 * a short term, or counts them and walks the sort index). Both must answer the same pages.
 */
describe.each(dialects)('listQrCodes on %s, with few and with many matches', (dialect) => {
  let handle: DatabaseHandle
  let drop: () => Promise<void>
  const codes: QrCodeRecord[] = []

  beforeAll(async () => {
    ;({ handle, drop } = await openTestDatabase(dialect, 'list'))
    await migrateToLatest(handle.db)
    const now = '2026-11-25T12:00:00.000Z'
    await handle.db
      .insertInto('accounts')
      .values({ id: 'acc', name: 'a', plan: 'pro', subscription_status: 'active', created_at: now })
      .execute()
    for (let i = 0; i < 6000; i++) {
      const at = new Date(Date.parse(now) + (i % 1000) * 1000).toISOString()
      codes.push({
        ...NO_REDIRECT_SETTINGS,
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        accountId: 'acc',
        name: `Code ${i % 97} menu`,
        type: 'static',
        contentType: 'text',
        content: i % 3 === 0 ? `common text ${i}` : `rare ${i}`,
        targetUrl: null,
        shortCode: null,
        style: null,
        isActive: true,
        totalScans: i % 13,
        externalId: null,
        tags: i % 7 === 0 ? ['few', 'many'] : ['many'],
        createdAt: at,
        updatedAt: at,
        // One in 50 deleted: the lists must leave them out, or list only them.
        deletedAt: i % 50 === 0 ? '2026-11-25T13:00:00.000Z' : null,
      })
    }
    for (let i = 0; i < codes.length; i += 500) await insertQrCodes(handle.db, codes.slice(i, i + 500))
  })
  afterAll(() => drop())

  const expected = (match: (code: QrCodeRecord) => boolean, limit: number) =>
    codes
      .filter(match)
      .sort((a, b) => b.totalScans - a.totalScans || (a.id < b.id ? -1 : 1))
      .slice(0, limit)
      .map((code) => code.id)
  const listed = (filter: Partial<QrCodeFilters>) => (code: QrCodeRecord) =>
    filter.deletedSince === undefined ? code.deletedAt === null : code.deletedAt !== null

  it.each([
    ['a tag on 5,880 codes (walks the sort index)', { tag: ['many'] }, () => true],
    [
      'a tag on 858 codes (starts from the tag)',
      { tag: ['few'] },
      (c: QrCodeRecord) => c.tags.includes('few'),
    ],
    [
      'a search matching 2,000 codes',
      { search: 'COMMON' },
      (c: QrCodeRecord) => c.content.startsWith('common'),
    ],
    ['a search matching 6,000 codes', { search: 'menu' }, (c: QrCodeRecord) => c.name.endsWith('menu')],
    [
      'a 2-character search matching few codes',
      { search: '99' },
      (c: QrCodeRecord) => searchText(c).includes('99'),
    ],
    [
      'a 1-character search matching many codes',
      { search: '7' },
      (c: QrCodeRecord) => searchText(c).includes('7'),
    ],
    [
      'a 2-character search matching 755 codes (sorted from their ids)',
      { search: ' 6' },
      (c: QrCodeRecord) => searchText(c).includes(' 6'),
    ],
    [
      'a 2-character search matching 1,627 codes (counted, then the sort index walked)',
      { search: ' 1' },
      (c: QrCodeRecord) => searchText(c).includes(' 1'),
    ],
    [
      'deleted codes holding a 1-character term',
      { search: '8', deletedSince: '2026-11-25T00:00:00.000Z' },
      (c: QrCodeRecord) => c.deletedAt !== null && searchText(c).includes('8'),
    ],
    [
      'a tag with a search (counted from the tag rows, starts from them)',
      { tag: ['few'], search: 'common' },
      (c: QrCodeRecord) => c.tags.includes('few') && c.content.startsWith('common'),
    ],
    [
      'a tag with a search matching 2,000 codes (walks the sort index)',
      { tag: ['many'], search: 'common' },
      (c: QrCodeRecord) => c.content.startsWith('common'),
    ],
    [
      'two tags with a 2-character search',
      { tag: ['many', 'few'], search: '99' },
      (c: QrCodeRecord) => c.tags.includes('few') && searchText(c).includes('99'),
    ],
  ])('answers %s in order, with its total', async (_, filter, match) => {
    const page = await listQrCodes(handle.db, dialect, 'acc', {
      limit: 20,
      offset: 0,
      sort: '-totalScans',
      ...filter,
    })
    const matching = (code: QrCodeRecord) => listed(filter)(code) && match(code)
    expect(page.total).toBe(codes.filter(matching).length)
    expect(page.records.map((r) => r.id)).toEqual(expected(matching, 20))
  })
})
