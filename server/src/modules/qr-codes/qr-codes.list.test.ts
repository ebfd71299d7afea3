import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../db/database.js'
import { insertQrCodes, listQrCodes, type QrCodeRecord } from './qr-codes.repository.js'
import { searchText } from './qr-codes.search.js'
import { NO_REDIRECT_SETTINGS } from './redirect-settings.js'

/**
 * The SQLite list takes one of two plans by the number of matches (listQrCodes: start from the
 * tag or search index and sort, or walk the sort index). Both must answer the same pages.
 */
describe('listQrCodes on SQLite, with few and with many matches', () => {
  let handle: DatabaseHandle
  const codes: QrCodeRecord[] = []

  beforeAll(async () => {
    handle = openDatabase({ dialect: 'sqlite', filename: ':memory:' })
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
        deletedAt: null,
      })
    }
    for (let i = 0; i < codes.length; i += 500) await insertQrCodes(handle.db, codes.slice(i, i + 500))
  })
  afterAll(() => handle.close())

  const expected = (match: (code: QrCodeRecord) => boolean, limit: number) =>
    codes
      .filter(match)
      .sort((a, b) => b.totalScans - a.totalScans || (a.id < b.id ? -1 : 1))
      .slice(0, limit)
      .map((code) => code.id)

  it.each([
    ['a tag on 6,000 codes (walks the sort index)', { tag: ['many'] }, () => true],
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
  ])('answers %s in order, with its total', async (_, filter, match) => {
    const page = await listQrCodes(handle.db, 'sqlite', 'acc', {
      limit: 20,
      offset: 0,
      sort: '-totalScans',
      ...filter,
    })
    expect(page.total).toBe(codes.filter(match).length)
    expect(page.records.map((r) => r.id)).toEqual(expected(match, 20))
  })
})
