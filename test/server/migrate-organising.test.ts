import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { accounts, migrations, openDatabase } from '@qrctl/server'
import { Migrator } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { api, UNLIMITED } from '../api/helpers.js'
import { createPostgresDatabase, dialects, startServer } from '../support/server.js'

const V1 = '2026_11_24_1210_unique_external_id'
/** The last migration before tag rows carried their code's deleted_at. */
const BEFORE_TAG_LIVENESS = '2026_11_25_1420_index_scans_by_time'
/** The last migration before tag rows carried their code's search text. */
const BEFORE_TAG_TEXT = '2026_11_27_1010_create_login_links'
/** The last migration before PostgreSQL's gram index of the search texts. */
const BEFORE_GRAM_INDEX = '2026_11_28_1100_create_scan_visitor_gaps'
const NOW = '2026-11-24T12:00:00.000Z'

/** A code row as the versions before these migrations wrote it (no column they add). */
function legacyCode(
  n: number,
  name: string,
  content: string,
  tags: string[],
  deletedAt: string | null = null,
) {
  return {
    id: `00000000-0000-4000-8000-00000000000${n}`,
    account_id: 'acc-v1',
    name,
    type: 'static',
    content_type: 'text',
    content,
    is_active: 1,
    created_at: `2026-11-24T12:00:0${n}.000Z`,
    updated_at: NOW,
    deleted_at: deletedAt,
    tags: JSON.stringify(tags),
    // Folded (lower-cased), fields joined by U+001F.
    search_text: `${name}\u001f${content}\u001f\u001f\u001f`.toLowerCase(),
    name_key: name.toLowerCase(),
  }
}

describe.each(dialects())('the tags and search migrations on %s', (dialect) => {
  const cleanups: (() => Promise<void> | void)[] = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  /** A fresh database of this dialect, migrated up to `name`, and its URL. */
  async function databaseAt(name: string) {
    let databaseUrl: string
    if (dialect === 'postgres') {
      const pg = await createPostgresDatabase()
      cleanups.push(pg.drop)
      databaseUrl = pg.url
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'qrctl-migrate-'))
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
      databaseUrl = `file:${join(dir, 'v1.db')}`
    }
    const handle = openDatabase(
      dialect === 'postgres'
        ? { dialect, connectionString: databaseUrl }
        : { dialect, filename: databaseUrl.slice('file:'.length) },
    )
    const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo(name)).error).toBeUndefined()
    await handle.db
      .insertInto('accounts')
      .values({ id: 'acc-v1', name: 'v1', plan: 'pro', subscription_status: 'active', created_at: NOW })
      .execute()
    return { handle, databaseUrl }
  }

  /** A server on the database (migrating it to the latest), and a client of the old account. */
  async function serve(databaseUrl: string) {
    const server = await startServer({ dialect, env: { ...UNLIMITED, DATABASE_URL: databaseUrl } })
    cleanups.push(() => server.close())
    const oldKey = await accounts.createAccountKey(server.ctx, 'acc-v1', { name: 'v1', scope: 'read_write' })
    return { server, client: api(server, oldKey.secret) }
  }

  it('upgrade a v1 database holding codes: searchable, sortable by name, tags []', async () => {
    const { handle, databaseUrl } = await databaseAt(V1)
    // Typed against the latest schema; these columns are the ones a v1 database has.
    const old = (id: string, name: string, content: string) => ({
      id,
      account_id: 'acc-v1',
      name,
      type: 'static',
      content_type: 'text',
      content,
      is_active: 1,
      created_at: NOW,
      updated_at: NOW,
    })
    await handle.db
      .insertInto('qr_codes')
      .values([
        old('00000000-0000-4000-8000-000000000001', 'ÉCLAIR Menu', 'Große Auswahl'),
        old('00000000-0000-4000-8000-000000000002', 'apple', 'plain'),
      ])
      .execute()
    await handle.close()

    // The old rows belong to another account; reach them through a key of theirs.
    const { server, client } = await serve(databaseUrl)
    const key = await server.createAccount()
    const found = await client.get('/qr-codes?search=%C3%A9clair%20m')
    expect(found.status, found.text).toBe(200)
    expect(found.body.data.map((c: { name: string }) => c.name)).toEqual(['ÉCLAIR Menu'])
    expect((await client.get('/qr-codes?search=GROSSE')).body.total).toBe(0)
    expect((await client.get('/qr-codes?search=gro%C3%9F')).body.total).toBe(1)
    // Searches of 1 and 2 characters find the old rows too.
    expect((await client.get('/qr-codes?search=%C3%9F')).body.total).toBe(1)
    expect((await client.get('/qr-codes?search=AP')).body.data.map((c: { name: string }) => c.name)).toEqual([
      'apple',
    ])
    expect((await client.get('/qr-codes?search=e')).body.total).toBe(2)
    const byName = await client.get('/qr-codes?sort=name')
    expect(byName.body.data.map((c: { name: string; tags: string[] }) => [c.name, c.tags])).toEqual([
      ['apple', []],
      ['ÉCLAIR Menu', []],
    ])
    expect((await api(server, key.apiKey).get('/qr-codes?search=apple')).body.total).toBe(0)
  })

  it('upgrade a database of tagged codes, some deleted: tag filters and GET /tags answer as before', async () => {
    const { handle, databaseUrl } = await databaseAt(BEFORE_TAG_LIVENESS)
    const code = (n: number, tags: string[], deletedAt: string | null = null) => ({
      id: `00000000-0000-4000-8000-00000000000${n}`,
      account_id: 'acc-v1',
      name: `Code ${n}`,
      type: 'static',
      content_type: 'text',
      content: `text ${n}`,
      is_active: 1,
      created_at: `2026-11-24T12:00:0${n}.000Z`,
      updated_at: NOW,
      deleted_at: deletedAt,
      tags: JSON.stringify(tags),
      search_text: `code ${n}\u001ftext ${n}\u001f\u001f\u001f`,
      name_key: `code ${n}`,
    })
    const codes = [
      code(1, ['menu', 'spring']),
      code(2, ['spring']),
      code(3, ['menu', 'spring'], '2026-11-24T13:00:00.000Z'),
      code(4, ['menu']),
    ]
    await handle.db.insertInto('qr_codes').values(codes).execute()
    // The tag rows as that version wrote them: no deleted_at of their own.
    const rows = codes.flatMap((c) =>
      (JSON.parse(c.tags) as string[]).map((tag) => ({ qr_code_id: c.id, account_id: 'acc-v1', tag })),
    )
    await handle.db
      .insertInto('qr_code_tags')
      .values(rows as never)
      .execute()
    await handle.close()

    const { client } = await serve(databaseUrl)
    const idsOf = (res: { body: { data: { id: string }[] } }) => res.body.data.map((c) => c.id.slice(-1))
    const spring = await client.get('/qr-codes?tag=spring')
    expect(spring.status, spring.text).toBe(200)
    expect([idsOf(spring), spring.body.total]).toEqual([['2', '1'], 2])
    const both = await client.get('/qr-codes?tag=spring&tag=menu')
    expect([idsOf(both), both.body.total]).toEqual([['1'], 1])
    const deleted = await client.get('/qr-codes?tag=menu&deleted=true')
    expect([idsOf(deleted), deleted.body.total]).toEqual([['3'], 1])
    expect((await client.get('/tags')).body.data).toEqual([
      { name: 'menu', count: 2 },
      { name: 'spring', count: 2 },
    ])
    // Restoring the deleted code brings its tags back into the filters and counts.
    expect((await client.post('/qr-codes/00000000-0000-4000-8000-000000000003/restore')).status).toBe(200)
    const after = await client.get('/qr-codes?tag=menu&tag=spring')
    expect([idsOf(after), after.body.total]).toEqual([['3', '1'], 2])
  })

  it('upgrade a database of tagged codes: a tag with a search finds what it found before', async () => {
    const { handle, databaseUrl } = await databaseAt(BEFORE_TAG_TEXT)
    const code = legacyCode
    const codes = [
      code(1, 'Table 1', 'menu', ['vip', 'menu']),
      code(2, 'Table 12', 'menu', ['vip']),
      code(3, 'Table 13', 'menu', ['vip'], '2026-11-24T13:00:00.000Z'),
      code(4, 'Bar 1', 'menu', ['vip']),
      // Over the tag rows' copy limit: counted by the code's own text.
      code(5, 'Long', `${'x'.repeat(2500)} table 1`, ['vip']),
    ]
    await handle.db.insertInto('qr_codes').values(codes).execute()
    const rows = codes.flatMap((c) =>
      (JSON.parse(c.tags) as string[]).map((tag) => ({
        qr_code_id: c.id,
        account_id: 'acc-v1',
        tag,
        deleted_at: c.deleted_at,
      })),
    )
    await handle.db
      .insertInto('qr_code_tags')
      .values(rows as never)
      .execute()
    await handle.close()

    const { client } = await serve(databaseUrl)
    const idsOf = (res: { body: { data: { id: string }[] } }) => res.body.data.map((c) => c.id.slice(-1))
    const both = await client.get('/qr-codes?tag=vip&search=TABLE%201')
    expect(both.status, both.text).toBe(200)
    expect([idsOf(both), both.body.total]).toEqual([['5', '2', '1'], 3])
    const two = await client.get('/qr-codes?tag=vip&tag=menu&search=table')
    expect([idsOf(two), two.body.total]).toEqual([['1'], 1])
    const deleted = await client.get('/qr-codes?tag=vip&search=table&deleted=true')
    expect([idsOf(deleted), deleted.body.total]).toEqual([['3'], 1])
    // A rename after the upgrade reaches the tag rows.
    await client.patch('/qr-codes/00000000-0000-4000-8000-000000000002', { name: 'Booth 2' })
    const renamed = await client.get('/qr-codes?tag=vip&search=table%201')
    expect([idsOf(renamed), renamed.body.total]).toEqual([['5', '1'], 2])
    expect((await client.get('/qr-codes?tag=vip&search=booth')).body.total).toBe(1)
    // Terms of 1 and 2 characters find the upgraded codes, and follow the rename.
    const short = await client.get('/qr-codes?search=12')
    expect([idsOf(short), short.body.total]).toEqual([[], 0])
    const digit = await client.get('/qr-codes?search=1')
    expect([idsOf(digit), digit.body.total]).toEqual([['5', '4', '1'], 3])
    const deletedShort = await client.get('/qr-codes?search=13&deleted=true')
    expect([idsOf(deletedShort), deletedShort.body.total]).toEqual([['3'], 1])
    expect((await client.get('/qr-codes?search=h%202')).body.total).toBe(1)
  })

  it('upgrade a database of codes: terms of 1 and 2 characters find what they found before, and follow writes', async () => {
    const { handle, databaseUrl } = await databaseAt(BEFORE_GRAM_INDEX)
    const code = (n: number, name: string, content: string, deletedAt: string | null = null) =>
      legacyCode(n, name, content, [], deletedAt)
    await handle.db
      .insertInto('qr_codes')
      .values([
        code(1, 'Zz top', '50% off'),
        code(2, 'Crème 🙂', 'a_b'),
        code(3, 'jazz', 'gone', '2026-11-24T13:00:00.000Z'),
        code(4, 'plain', 'Große'),
      ])
      .execute()
    await handle.close()

    const { client } = await serve(databaseUrl)
    const found = async (search: string, deleted = false) => {
      const res = await client.get(
        `/qr-codes?search=${encodeURIComponent(search)}${deleted ? '&deleted=true' : ''}`,
      )
      expect(res.status, res.text).toBe(200)
      return [res.body.data.map((c: { id: string }) => c.id.slice(-1)), res.body.total]
    }
    expect(await found('ZZ')).toEqual([['1'], 1])
    expect(await found('zz', true)).toEqual([['3'], 1])
    expect(await found('%')).toEqual([['1'], 1])
    expect(await found('_')).toEqual([['2'], 1])
    expect(await found('è')).toEqual([['2'], 1])
    expect(await found('🙂')).toEqual([['2'], 1])
    expect(await found('ß')).toEqual([['4'], 1])
    expect(await found('o')).toEqual([['4', '1'], 2])
    expect(await found('zt')).toEqual([[], 0])
    // Writes after the upgrade reach the new index: a rename, a restore, a new code.
    await client.patch('/qr-codes/00000000-0000-4000-8000-000000000001', { name: 'Top' })
    expect(await found('zz')).toEqual([[], 0])
    await client.post('/qr-codes/00000000-0000-4000-8000-000000000003/restore')
    expect(await found('zz')).toEqual([['3'], 1])
    await client.post('/qr-codes', { name: 'fizz', contentType: 'text', content: 'x' })
    expect((await found('zz'))[1]).toBe(2)
  })
})
