import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { accounts, migrations, openDatabase } from '@qrctl/server'
import { Migrator } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { api, UNLIMITED } from '../api/helpers.js'
import { createPostgresDatabase, dialects, startServer } from '../support/server.js'

const V1 = '2026_11_24_1210_unique_external_id'
const NOW = '2026-11-24T12:00:00.000Z'

describe.each(dialects())('the tags and search migrations on %s', (dialect) => {
  const cleanups: (() => Promise<void> | void)[] = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  it('upgrade a v1 database holding codes: searchable, sortable by name, tags []', async () => {
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
    expect((await migrator.migrateTo(V1)).error).toBeUndefined()
    // Typed against the latest schema; these columns are the ones a v1 database has.
    await handle.db
      .insertInto('accounts')
      .values({ id: 'acc-v1', name: 'v1', plan: 'pro', subscription_status: 'active', created_at: NOW })
      .execute()
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

    const server = await startServer({ dialect, env: { ...UNLIMITED, DATABASE_URL: databaseUrl } })
    cleanups.push(() => server.close())
    const key = await server.createAccount()
    // The old rows belong to another account; reach them through a key of theirs.
    const oldKey = await accounts.createAccountKey(server.ctx, 'acc-v1', { name: 'v1', scope: 'read_write' })
    const client = api(server, oldKey.secret)
    const found = await client.get('/qr-codes?search=%C3%A9clair%20m')
    expect(found.status, found.text).toBe(200)
    expect(found.body.data.map((c: { name: string }) => c.name)).toEqual(['ÉCLAIR Menu'])
    expect((await client.get('/qr-codes?search=GROSSE')).body.total).toBe(0)
    expect((await client.get('/qr-codes?search=gro%C3%9F')).body.total).toBe(1)
    const byName = await client.get('/qr-codes?sort=name')
    expect(byName.body.data.map((c: { name: string; tags: string[] }) => [c.name, c.tags])).toEqual([
      ['apple', []],
      ['ÉCLAIR Menu', []],
    ])
    expect((await api(server, key.apiKey).get('/qr-codes?search=apple')).body.total).toBe(0)
  })
})
