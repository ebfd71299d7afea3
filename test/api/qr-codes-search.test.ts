import type { QrCode } from '@qrctl/contract'
import { ManualClock, runHousekeeping } from '@qrctl/server'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scanOk } from '../redirects/scan-helpers.js'
import { dialects, startServer, type TestServer } from '../support/server.js'
import {
  type Api,
  api,
  createCode,
  dynamicCode,
  expectError,
  expectNoLeak,
  T0,
  textCode,
  UNLIMITED,
} from './helpers.js'

const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((c) => c.id)
const q = (params: Record<string, string | string[]>) => {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params))
    for (const v of Array.isArray(value) ? value : [value]) search.append(key, v)
  return `/qr-codes?${search}`
}

describe.each(dialects())('GET /qr-codes: tags, search, filters and sorting on %s', (dialect) => {
  let server: TestServer
  const clock = new ManualClock(new Date(T0))

  beforeAll(async () => {
    server = await startServer({ dialect, clock, env: UNLIMITED })
  })
  afterAll(() => server.close())

  async function freshClient(): Promise<Api> {
    return api(server, (await server.createAccount()).apiKey)
  }

  describe('happy', () => {
    it('filters by one tag, and by every one of several (normalised like tags)', async () => {
      const client = await freshClient()
      const both = await createCode(client, textCode({ tags: ['spring', 'menu'] }))
      const spring = await createCode(client, textCode({ tags: ['spring'] }))
      await createCode(client, textCode({ tags: ['menu'] }))
      await createCode(client)
      const one = await client.get(q({ tag: ' Spring ' }))
      expect(one.status).toBe(200)
      expect(new Set(ids(one))).toEqual(new Set([both.id, spring.id]))
      expect(one.body.total).toBe(2)
      const every = await client.get(q({ tag: ['spring', 'MENU'] }))
      expect(ids(every)).toEqual([both.id])
      expect(every.body.total).toBe(1)
      expect((await client.get(q({ tag: 'nothing' }))).body).toMatchObject({ data: [], total: 0 })
    })

    it('pages a common tag and two tags in order, totals counted from the tags and matching the pages', async () => {
      const client = await freshClient()
      const items = Array.from({ length: 30 }, (_, i) =>
        textCode({
          name: `Table ${i}`,
          tags: i % 3 === 0 ? ['menu', 'vip'] : i % 2 === 0 ? ['menu'] : ['vip'],
        }),
      )
      clock.advance(1000)
      const made = (await client.post('/qr-codes/batch', { codes: items })).body.data.items as {
        id: string
        tags: string[]
      }[]
      const expected = (tags: string[], byName = false) => {
        const matching = made.filter((c) => tags.every((t) => c.tags.includes(t)))
        // One batch shares one createdAt: the default order is by id descending.
        return byName
          ? matching.map((c) => c.id)
          : matching
              .map((c) => c.id)
              .sort()
              .reverse()
      }
      const pages = async (params: Record<string, string | string[]>) => {
        const seen: string[] = []
        for (let offset = 0; ; offset += 7) {
          const res = await client.get(q({ ...params, limit: '7', offset: String(offset) }))
          expect(res.status).toBe(200)
          seen.push(...ids(res))
          if (res.body.data.length < 7) return { seen, total: res.body.total as number }
        }
      }
      for (const tags of [['menu'], ['vip'], ['menu', 'vip'], ['vip', 'menu']]) {
        const { seen, total } = await pages({ tag: tags })
        expect(seen, tags.join('+')).toEqual(expected(tags))
        expect(total, tags.join('+')).toBe(expected(tags).length)
      }
      // Sorted by name ("table 0" < "table 1" < "table 10" …, code-point order).
      const byName = made
        .filter((c) => c.tags.includes('menu') && c.tags.includes('vip'))
        .sort((a, b) => (`table ${made.indexOf(a)}` < `table ${made.indexOf(b)}` ? -1 : 1))
        .map((c) => c.id)
      expect((await pages({ tag: ['menu', 'vip'], sort: 'name' })).seen).toEqual(byName)
    })

    it('keeps a tag filter’s total and pages in step with deleting and restoring, single and in bulk', async () => {
      const client = await freshClient()
      const codes = []
      for (let i = 0; i < 4; i++) codes.push(await createCode(client, textCode({ tags: ['camp', 'spring'] })))
      const [a, b, c] = codes.map((code) => code.id) as [string, string, string]
      await client.delete(`/qr-codes/${a}`)
      await client.post('/qr-codes/bulk-delete', { ids: [b, c] })
      for (const tag of [['camp'], ['camp', 'spring']]) {
        const live = await client.get(q({ tag }))
        expect(live.body.total).toBe(1)
        expect(ids(live)).toEqual([codes[3]?.id])
        const deleted = await client.get(q({ tag, deleted: 'true' }))
        expect(deleted.body.total).toBe(3)
        expect(new Set(ids(deleted))).toEqual(new Set([a, b, c]))
      }
      await client.post(`/qr-codes/${a}/restore`)
      await client.post('/qr-codes/bulk-restore', { ids: [b] })
      const restored = await client.get(q({ tag: ['spring', 'camp'] }))
      expect(restored.body.total).toBe(3)
      expect(new Set(ids(restored))).toEqual(new Set([a, b, codes[3]?.id]))
      expect((await client.get(q({ tag: 'camp', deleted: 'true' }))).body.total).toBe(1)
      // A PATCH of a restored code's tags writes rows that stay live.
      await client.patch(`/qr-codes/${a}`, { tags: ['camp'] })
      expect((await client.get(q({ tag: 'camp' }))).body.total).toBe(3)
      expect((await client.get(q({ tag: ['camp', 'spring'] }))).body.total).toBe(2)
    })

    it('searches name, content, targetUrl, shortCode and externalId, case-insensitively', async () => {
      const client = await freshClient()
      const byName = await createCode(client, textCode({ name: 'Terrasse Été' }))
      const byContent = await createCode(client, textCode({ content: 'Find the Needle here' }))
      const byTarget = await createCode(
        client,
        dynamicCode({ content: 'https://example.com/a', targetUrl: 'https://shop.example/Spring-Sale' }),
      )
      const dynamic = await createCode(client, dynamicCode())
      const byExternal = await createCode(client, textCode({ externalId: 'SKU-4711' }))
      await createCode(client, textCode({ name: 'other', content: 'nothing' }))
      expect(ids(await client.get(q({ search: 'terrasse été' })))).toEqual([byName.id])
      expect(ids(await client.get(q({ search: 'TERRASSE ÉTÉ' })))).toEqual([byName.id])
      expect(ids(await client.get(q({ search: 'nEEdle' })))).toEqual([byContent.id])
      expect(ids(await client.get(q({ search: 'spring-sale' })))).toEqual([byTarget.id])
      expect(ids(await client.get(q({ search: dynamic.shortCode as string })))).toEqual([dynamic.id])
      expect(ids(await client.get(q({ search: 'sku-47' })))).toEqual([byExternal.id])
    })

    it('finds terms of 1 and 2 characters at any place of any field, following PATCH and delete', async () => {
      const client = await freshClient()
      const first = await createCode(client, textCode({ name: 'Qx menu', content: 'plain' }))
      const last = await createCode(client, textCode({ name: 'menu', content: 'plain', externalId: 'ab-qx' }))
      const wide = await createCode(client, textCode({ name: 'Crème 🙂', content: 'plain' }))
      const apart = await createCode(client, textCode({ name: 'q then x', content: 'plain' }))
      const found = async (search: string) => new Set(ids(await client.get(q({ search }))))
      expect(await found('QX')).toEqual(new Set([first.id, last.id]))
      expect(await found('q')).toEqual(new Set([first.id, last.id, apart.id]))
      expect(await found('È')).toEqual(new Set([wide.id]))
      expect(await found('e 🙂')).toEqual(new Set([wide.id]))
      expect(await found('🙂')).toEqual(new Set([wide.id]))
      expect(await found('xq')).toEqual(new Set())
      expect((await client.get(q({ search: 'x', limit: '1' }))).body.total).toBe(3)
      await client.patch(`/qr-codes/${first.id}`, { name: 'Zy menu' })
      expect(await found('qx')).toEqual(new Set([last.id]))
      expect(await found('zy')).toEqual(new Set([first.id]))
      await client.delete(`/qr-codes/${last.id}`)
      expect(await found('qx')).toEqual(new Set())
      expect(ids(await client.get(q({ search: 'qx', deleted: 'true' })))).toEqual([last.id])
      await client.post(`/qr-codes/${last.id}/restore`)
      expect(await found('qx')).toEqual(new Set([last.id]))
      await client.post('/qr-codes/bulk-delete', { ids: [last.id, wide.id] })
      expect(await found('qx')).toEqual(new Set())
      expect(await found('🙂')).toEqual(new Set())
      await client.post('/qr-codes/bulk-restore', { ids: [wide.id] })
      expect(await found('🙂')).toEqual(new Set([wide.id]))
      const batch = await client.post('/qr-codes/batch', {
        codes: [textCode({ name: 'jq one', content: 'plain' })],
      })
      expect(await found('jq')).toEqual(new Set([batch.body.data.items[0].id]))
    })

    it('answers every term of 1 and 2 characters as a literal test of each field, through every write and the purge', async () => {
      const client = await freshClient()
      const codes = [
        await createCode(client, textCode({ name: 'Crème brûlée 🙂', content: 'tab\there\nnext line' })),
        await createCode(client, textCode({ name: '50% off_now', content: 'C:\\menu', externalId: 'ZZ-9' })),
        await createCode(client, dynamicCode({ name: 'İstanbul ß ς', content: 'https://ex.example/zz?a=1' })),
        await createCode(client, textCode({ name: 'aa aaa', content: 'ΣΑΣ 🙂🙂' })),
      ]
      const fold = (text: string) => text.toLowerCase().replaceAll('ς', 'σ')
      const byCreation = (a: QrCode, b: QrCode) =>
        a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1
      const fields = (c: QrCode) =>
        [c.name, c.content, c.targetUrl, c.shortCode, c.externalId].map((f) => fold(f ?? ''))
      const grams = (text: string) => {
        const chars = [...text]
        return chars.flatMap((ch, i) => (i > 0 ? [ch, `${chars[i - 1]}${ch}`] : [ch]))
      }
      /** Every 1- and 2-character term of the live codes and of what they held, and a few of none. */
      const terms = new Set(['Q', 'é?', '_%', '\\%', '9\t', '🙂a', 'σσ'])
      const check = async (live: QrCode[], deleted: QrCode[] = []) => {
        for (const c of [...live, ...deleted])
          for (const f of fields(c)) for (const g of grams(f)) terms.add(g)
        for (const term of terms) {
          const folded = fold(term)
          if ([...folded].length > 2) continue
          const holding = (list: QrCode[]) =>
            list.filter((c) => fields(c).some((f) => f.includes(folded))).map((c) => c.id)
          for (const [list, extra] of [
            [live, {}],
            [deleted, { deleted: 'true' }],
          ] as const) {
            const res = await client.get(q({ search: term, limit: '100', sort: 'createdAt', ...extra }))
            expect(res.status, term).toBe(200)
            expect([ids(res), res.body.total], `${JSON.stringify(term)} ${JSON.stringify(extra)}`).toEqual([
              holding([...list].sort(byCreation)),
              holding(list).length,
            ])
          }
        }
      }
      const [creme, percent, city, doubled] = codes as [QrCode, QrCode, QrCode, QrCode]
      await check(codes)
      // Paging a short search: the total counts every match, the page holds its share.
      const page = await client.get(q({ search: '🙂', limit: '1', offset: '1', sort: 'createdAt' }))
      expect([ids(page), page.body.total]).toEqual([[[creme, doubled].sort(byCreation)[1]?.id], 2])
      const patched = (
        await client.patch(`/qr-codes/${percent.id}`, { name: 'Ωmega', externalId: 'qq-1', tags: ['x'] })
      ).body.data
      const retargeted = (
        await client.patch(`/qr-codes/${city.id}`, { targetUrl: 'https://other.example/yy' })
      ).body.data
      await check([creme, patched, retargeted, doubled])
      await client.delete(`/qr-codes/${creme.id}`)
      await client.post('/qr-codes/bulk-delete', { ids: [doubled.id] })
      const gone = [creme, doubled]
      await check([patched, retargeted], gone)
      await client.post('/qr-codes/bulk-restore', { ids: [doubled.id] })
      const batch = await client.post('/qr-codes/batch', { codes: [textCode({ name: 'jj « ok »' })] })
      const batched = batch.body.data.items[0] as QrCode
      await check([patched, retargeted, doubled, batched], [creme])
      // The purge removes the deleted code for good: no search finds it, deleted or not.
      clock.advance(31 * 86_400_000)
      try {
        await runHousekeeping(server.ctx)
        await check([patched, retargeted, doubled, batched])
      } finally {
        clock.set(T0)
      }
    })

    it('counts and pages a letter in every code as exactly as a rare pair, with the statistics of 5,000 codes', async () => {
      const { accountId, apiKey } = await server.createAccount()
      const client = api(server, apiKey)
      // Straight into the table (as a bulk load would), so that PostgreSQL's statistics see a
      // letter common enough to be scanned for, rather than looked up in the gram index.
      const rows = Array.from({ length: 5000 }, (_, i) => {
        const name = `Item ${i}${i % 1000 === 7 ? ' zq' : ''}`
        return {
          id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
          account_id: accountId,
          name,
          type: 'static',
          content_type: 'text',
          content: 'plain',
          is_active: 1,
          created_at: new Date(Date.parse(T0) + i * 1000).toISOString(),
          updated_at: T0,
          tags: '[]',
          search_text: `${name.toLowerCase()}\u001fplain\u001f\u001f\u001f`,
          name_key: name.toLowerCase(),
        }
      })
      for (let i = 0; i < rows.length; i += 500)
        await server.ctx.db
          .insertInto('qr_codes')
          .values(rows.slice(i, i + 500))
          .execute()
      await client.delete(`/qr-codes/${rows[1]?.id}`)
      if (dialect === 'postgres') await sql`analyze qr_code_texts`.execute(server.ctx.db)
      const listed = async (search: string, extra: Record<string, string> = {}) => {
        const res = await client.get(q({ search, sort: 'createdAt', limit: '3', ...extra }))
        expect(res.status, res.text).toBe(200)
        return [ids(res), res.body.total]
      }
      const id = (i: number) => rows[i]?.id
      expect(await listed('E')).toEqual([[id(0), id(2), id(3)], 4999])
      expect(await listed('e', { offset: '4000' })).toEqual([[id(4001), id(4002), id(4003)], 4999])
      expect(await listed('zq')).toEqual([[id(7), id(1007), id(2007)], 5])
      expect(await listed('7 ')).toEqual([[id(7), id(1007), id(2007)], 5])
      expect(await listed('9')).toEqual([[id(9), id(19), id(29)], 1355])
      expect(await listed('e', { deleted: 'true' })).toEqual([[id(1)], 1])
    })

    it('matches %, _ and \\ literally, and never across two fields', async () => {
      const client = await freshClient()
      const percent = await createCode(client, textCode({ name: '50% off' }))
      const underscore = await createCode(client, textCode({ name: 'a_b' }))
      const backslash = await createCode(client, textCode({ name: 'C:\\menu' }))
      await createCode(client, textCode({ name: '50 percent off', content: 'axb' }))
      await createCode(client, textCode({ name: 'field end', content: 'start' }))
      expect(ids(await client.get(q({ search: '%' })))).toEqual([percent.id])
      expect(ids(await client.get(q({ search: '0% o' })))).toEqual([percent.id])
      expect(ids(await client.get(q({ search: '_' })))).toEqual([underscore.id])
      expect(ids(await client.get(q({ search: 'a_b' })))).toEqual([underscore.id])
      expect(ids(await client.get(q({ search: '\\' })))).toEqual([backslash.id])
      expect(ids(await client.get(q({ search: ':\\m' })))).toEqual([backslash.id])
      expect((await client.get(q({ search: 'endstart' }))).body.total).toBe(0)
      expect((await client.get(q({ search: "' or 1=1 --" }))).body.total).toBe(0)
      expect((await client.get(q({ search: '*' }))).body.total).toBe(0)
    })

    it('finds a code by what a PATCH wrote, and no longer by what it replaced; never a deleted one', async () => {
      const client = await freshClient()
      const code = await createCode(client, textCode({ name: 'Old banner', content: 'first text' }))
      await client.patch(`/qr-codes/${code.id}`, { name: 'Fresh poster', content: 'second words' })
      expect((await client.get(q({ search: 'old banner' }))).body.total).toBe(0)
      expect((await client.get(q({ search: 'first text' }))).body.total).toBe(0)
      expect(ids(await client.get(q({ search: 'fresh post' })))).toEqual([code.id])
      expect(ids(await client.get(q({ search: 'second wo' })))).toEqual([code.id])
      await client.delete(`/qr-codes/${code.id}`)
      expect((await client.get(q({ search: 'fresh post' }))).body.total).toBe(0)
    })

    it('counts a tag with a search in step with create, batch, PATCH, bulk changes, delete and restore', async () => {
      const client = await freshClient()
      // Totals of a tag with a search come from the tag rows' copy of the text (countTagged).
      const found = async (params: Record<string, string | string[]>) => {
        const res = await client.get(q(params))
        expect(res.status, res.text).toBe(200)
        expect(res.body.total).toBe(res.body.data.length)
        return new Set(ids(res))
      }
      const a = await createCode(client, textCode({ name: 'Old banner', tags: ['promo'] }))
      const batch = await client.post('/qr-codes/batch', {
        codes: [
          textCode({ name: 'Old banner two', tags: ['promo'] }),
          textCode({ name: 'Other', tags: ['promo'] }),
        ],
      })
      expect(batch.status, batch.text).toBe(201)
      const [b, other] = batch.body.data.items as { id: string }[]
      expect(await found({ tag: 'promo', search: 'OLD BANNER' })).toEqual(new Set([a.id, b?.id]))
      // A rename is found by its new name and no longer by its old one.
      await client.patch(`/qr-codes/${a.id}`, { name: 'Fresh poster' })
      expect(await found({ tag: 'promo', search: 'old banner' })).toEqual(new Set([b?.id]))
      expect(await found({ tag: 'promo', search: 'fresh poster' })).toEqual(new Set([a.id]))
      // New tags carry the current text; a text change without a tag change reaches the tag rows.
      await client.patch(`/qr-codes/${a.id}`, { tags: ['other'] })
      expect(await found({ tag: 'promo', search: 'fresh' })).toEqual(new Set())
      expect(await found({ tag: 'other', search: 'fresh' })).toEqual(new Set([a.id]))
      await client.patch(`/qr-codes/${a.id}`, { externalId: 'SKU-77', content: 'new words' })
      expect(await found({ tag: 'other', search: 'sku-77' })).toEqual(new Set([a.id]))
      expect(await found({ tag: 'other', search: 'new wo' })).toEqual(new Set([a.id]))
      expect(await found({ tag: 'other', search: 'hello' })).toEqual(new Set())
      await client.post('/qr-codes/bulk-update', { ids: [a.id], addTags: ['promo'] })
      expect(await found({ tag: ['promo', 'other'], search: 'fresh' })).toEqual(new Set([a.id]))
      expect(await found({ tag: 'promo', search: 'o' })).toEqual(new Set([a.id, b?.id, other?.id]))
      // Deleted codes leave the live counts and join the deleted ones; restored codes return.
      await client.delete(`/qr-codes/${a.id}`)
      expect(await found({ tag: 'promo', search: 'fresh' })).toEqual(new Set())
      expect(await found({ tag: 'promo', search: 'fresh', deleted: 'true' })).toEqual(new Set([a.id]))
      await client.post(`/qr-codes/${a.id}/restore`)
      expect(await found({ tag: 'promo', search: 'fresh' })).toEqual(new Set([a.id]))
      await client.post('/qr-codes/bulk-delete', { ids: [a.id, b?.id] })
      expect(await found({ tag: 'promo', search: 'o' })).toEqual(new Set([other?.id]))
      await client.post('/qr-codes/bulk-restore', { ids: [b?.id] })
      expect(await found({ tag: 'promo', search: 'old banner' })).toEqual(new Set([b?.id]))
    })

    it('counts a tag with a search over a text too long for the tag rows’ copy, literally', async () => {
      const client = await freshClient()
      // Over 2,000 bytes of text: its tag rows carry no copy, and the code's own text is tested.
      const long = await createCode(
        client,
        textCode({ name: 'Long one', content: `${'é'.repeat(1000)}needle 50%`, tags: ['deep', 'x'] }),
      )
      const short = await createCode(client, textCode({ name: 'needle 50 percent', tags: ['deep'] }))
      const total = async (params: Record<string, string | string[]>) =>
        (await client.get(q(params))).body.total
      expect(await total({ tag: 'deep', search: 'NEEDLE' })).toBe(2)
      expect(await total({ tag: 'deep', search: '0%' })).toBe(1)
      expect(await total({ tag: ['deep', 'x'], search: 'needle' })).toBe(1)
      expect(await total({ tag: 'deep', search: 'éé' })).toBe(1)
      expect(await total({ tag: 'deep', search: '_' })).toBe(0)
      await client.patch(`/qr-codes/${long.id}`, { content: 'short now' })
      expect(await total({ tag: 'deep', search: 'needle' })).toBe(1)
      expect(await total({ tag: 'deep', search: 'short now' })).toBe(1)
      await client.patch(`/qr-codes/${short.id}`, { content: `${'a'.repeat(2100)} far` })
      expect(await total({ tag: 'deep', search: 'a far' })).toBe(1)
      expect(await total({ tag: 'deep', search: 'needle 50' })).toBe(1)
    })

    it('filters by isActive', async () => {
      const client = await freshClient()
      const paused = await createCode(client, dynamicCode())
      const live = await createCode(client, dynamicCode())
      await client.patch(`/qr-codes/${paused.id}`, { isActive: false })
      expect(ids(await client.get(q({ isActive: 'false' })))).toEqual([paused.id])
      expect(ids(await client.get(q({ isActive: 'true' })))).toEqual([live.id])
      expect((await client.get(q({ isActive: '0' }))).body.total).toBe(1)
    })

    it('sorts by createdAt, updatedAt, name and totalScans either way, ties by id ascending', async () => {
      const client = await freshClient()
      const make = async (name: string) => {
        clock.advance(1000)
        return (await createCode(client, textCode({ name }))).id
      }
      const b = await make('banana')
      const a = await make('Apple')
      const z = await make('zebra')
      const e = await make('Éclair')
      clock.advance(1000)
      await client.patch(`/qr-codes/${b}`, { content: 'touched' })
      expect(ids(await client.get(q({ sort: 'createdAt' })))).toEqual([b, a, z, e])
      expect(ids(await client.get(q({ sort: '-createdAt' })))).toEqual([e, z, a, b])
      expect(ids(await client.get('/qr-codes'))).toEqual([e, z, a, b])
      expect(ids(await client.get(q({ sort: '-updatedAt' })))).toEqual([b, e, z, a])
      expect(ids(await client.get(q({ sort: 'updatedAt' })))).toEqual([a, z, e, b])
      // Lower-cased, code-point order: "é" (U+00E9) sorts after "z".
      expect(ids(await client.get(q({ sort: 'name' })))).toEqual([a, b, z, e])
      expect(ids(await client.get(q({ sort: '-name' })))).toEqual([e, z, b, a])
      const byId = [a, b, z, e].sort()
      expect(ids(await client.get(q({ sort: 'totalScans' })))).toEqual(byId)
      expect(ids(await client.get(q({ sort: '-totalScans' })))).toEqual(byId)
    })

    it('sorts by totalScans from the scans recorded', async () => {
      const client = await freshClient()
      const none = await createCode(client, dynamicCode())
      const many = await createCode(client, dynamicCode())
      const one = await createCode(client, dynamicCode())
      for (let i = 0; i < 3; i++) await scanOk(server, many.shortCode as string)
      await scanOk(server, one.shortCode as string)
      await server.running.scans.flush()
      const listed = await client.get(q({ sort: '-totalScans' }))
      const order = ids(listed)
      expect(order).toEqual([many.id, one.id, none.id])
      expect(ids(await client.get(q({ sort: 'totalScans' })))).toEqual([none.id, one.id, many.id])
    })

    it('combines every filter with type, externalId, deleted=true, sort and paging; total counts the matches', async () => {
      const client = await freshClient()
      const make = async (overrides: Parameters<typeof textCode>[0], dynamic = false) => {
        clock.advance(1000)
        return createCode(client, dynamic ? dynamicCode(overrides) : textCode(overrides))
      }
      const s1 = await make({ name: 'Spring A', tags: ['spring'] }, true)
      const s2 = await make({ name: 'Spring B', tags: ['spring'] }, true)
      const s3 = await make({ name: 'Spring C', tags: ['spring'] }, true)
      await make({ name: 'Spring static', tags: ['spring'] })
      await make({ name: 'Winter', tags: ['winter'] }, true)
      const ext = await make({ name: 'Spring keyed', tags: ['spring'], externalId: 'key-1' }, true)
      await client.patch(`/qr-codes/${s2.id}`, { isActive: false })
      const filters = { tag: 'spring', search: 'spring', type: 'dynamic', isActive: 'true', sort: 'name' }
      const page1 = await client.get(q({ ...filters, limit: '2' }))
      expect(page1.body).toMatchObject({ total: 3, limit: 2, offset: 0 })
      expect(ids(page1)).toEqual([s1.id, s3.id])
      const page2 = await client.get(q({ ...filters, limit: '2', offset: '2' }))
      expect(ids(page2)).toEqual([ext.id])
      expect(ids(await client.get(q({ ...filters, externalId: 'key-1' })))).toEqual([ext.id])
      await client.delete(`/qr-codes/${s1.id}`)
      await client.delete(`/qr-codes/${s3.id}`)
      const deleted = await client.get(q({ deleted: 'true', tag: 'spring', search: 'spring a' }))
      expect(ids(deleted)).toEqual([s1.id])
      expect(deleted.body.data[0].deletedAt).toBeDefined()
      expect(ids(await client.get(q({ deleted: 'true', sort: 'name' })))).toEqual([s1.id, s3.id])
      expect((await client.get(q(filters))).body.total).toBe(1)
    })
  })

  describe('errors', () => {
    it.each([
      ['search=', 'search'],
      [`search=${'x'.repeat(201)}`, 'search'],
      ['search=%01', 'search'],
      ['sort=scans', 'sort'],
      ['sort=-id', 'sort'],
      ['isActive=yes', 'isActive'],
      ['tag=bad!', 'tag'],
      [`tag=${'x'.repeat(41)}`, 'tag'],
      [Array.from({ length: 21 }, (_, i) => `tag=t${i}`).join('&'), 'tag'],
    ])('answers 400 validation_error for %s', async (query, path) => {
      const res = await api(server, server.apiKey).get(`/qr-codes?${query}`)
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues.map((i: { path: string }) => i.path.split('.')[0])).toContain(path)
      expectNoLeak(res.text)
    })

    it('never fails on hostile search text', async () => {
      const client = await freshClient()
      await createCode(client, textCode({ name: 'plain' }))
      for (const search of [
        "'",
        '"',
        '\\',
        '\\\\%',
        "%'; drop table qr_codes; --",
        '[a-z]*',
        'ß',
        '🙂',
        '\u0130',
      ]) {
        const res = await client.get(q({ search }))
        expect(res.status, search).toBe(200)
        expect(res.body.total, search).toBe(0)
      }
      expect((await client.get('/qr-codes')).body.total).toBe(1)
    })
  })

  describe('security', () => {
    it('never finds another account’s codes by tag or search', async () => {
      const a = await freshClient()
      const b = await freshClient()
      await createCode(a, textCode({ name: 'secret plan', tags: ['secret'] }))
      expect((await b.get(q({ tag: 'secret' }))).body).toMatchObject({ data: [], total: 0 })
      expect((await b.get(q({ search: 'secret' }))).body).toMatchObject({ data: [], total: 0 })
    })

    it('answers 403 insufficient_scope to a filtered list with a write-only key', async () => {
      const writer = await server.createAccount({ scope: 'write' })
      expectError(
        await api(server, writer.apiKey).get(q({ tag: 'x', search: 'y' })),
        403,
        'insufficient_scope',
      )
    })
  })
})
