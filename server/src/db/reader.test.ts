import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Kysely, sql } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openDatabase } from './database.js'
import { createSnapshot, openReader, prepareLookup, type Reader } from './reader.js'

/** The event loop's next turn: a new poll phase, after this one's check phase. */
const nextTurn = () => new Promise<void>((done) => setImmediate(() => setImmediate(done)))

interface Tables {
  items: { account: string; id: string; kind: string; name: string }
}

describe('the reader', () => {
  let dir: string
  let writer: Kysely<Tables>
  let close: () => Promise<void>
  let reader: Reader

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'qrctl-reader-'))
    const target = { dialect: 'sqlite' as const, filename: join(dir, 'q.db') }
    const handle = openDatabase(target)
    writer = handle.db as unknown as Kysely<Tables>
    close = handle.close
    await sql`create table items (account text, id text, kind text, name text)`.execute(writer)
    await writer
      .insertInto('items')
      .values([
        { account: 'a', id: '1', kind: 'live', name: 'first' },
        { account: 'a', id: '2', kind: 'gone', name: 'second' },
        { account: 'b', id: '1', kind: 'live', name: 'other account' },
      ])
      .execute()
    reader = openReader(target) as Reader
  })
  afterEach(async () => {
    reader.close()
    await close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('is only opened on a SQLite file', () => {
    expect(openReader({ dialect: 'sqlite', filename: ':memory:' })).toBeUndefined()
    expect(openReader({ dialect: 'postgres', connectionString: 'postgres://127.0.0.1/x' })).toBeUndefined()
    expect(reader.readonly).toBe(true)
  })

  it('runs a Kysely query with its arguments in their places, constants kept', () => {
    // `id` comes before `account` in the SQL, and 'live' is a constant between them.
    const find = prepareLookup(reader, (account: string, id: string) =>
      writer
        .selectFrom('items')
        .select('name')
        .where('id', '=', id)
        .where('kind', '=', 'live')
        .where('account', '=', account),
    )
    expect(find('a', '1')).toEqual({ name: 'first' })
    expect(find('b', '1')).toEqual({ name: 'other account' })
    expect(find('a', '2')).toBeUndefined()
    expect(find('c', '1')).toBeUndefined()
  })

  it('refuses a query that leaves an argument out', () => {
    expect(() =>
      prepareLookup(reader, (_account: string, id: string) =>
        writer.selectFrom('items').select('name').where('id', '=', id),
      ),
    ).toThrow(/not a parameter/)
  })

  it('keeps answers until another connection commits, then finds again', async () => {
    const snapshot = createSnapshot(reader)
    let finds = 0
    const row = prepareLookup(reader, (id: string) =>
      writer.selectFrom('items').select('name').where('account', '=', 'a').where('id', '=', id),
    )
    const find = snapshot.memo((id: string) => {
      finds++
      return row(id)?.name
    })
    snapshot.refresh()
    expect([find('1'), find('1'), find('9'), find('9')]).toEqual(['first', 'first', undefined, undefined])
    expect(finds).toBe(2)

    snapshot.refresh()
    expect(find('1')).toBe('first')
    expect(finds).toBe(2)

    await writer.updateTable('items').set({ name: 'renamed' }).where('id', '=', '1').execute()
    await writer.insertInto('items').values({ account: 'a', id: '9', kind: 'live', name: 'new' }).execute()
    await nextTurn()
    snapshot.refresh()
    expect([find('1'), find('9')]).toEqual(['renamed', 'new'])
    expect(finds).toBe(4)
  })

  it('sees a commit from another connection to the file (an admin command, another process)', async () => {
    const snapshot = createSnapshot(reader)
    const row = prepareLookup(reader, (id: string) =>
      writer.selectFrom('items').select('name').where('account', '=', 'a').where('id', '=', id),
    )
    const find = snapshot.memo((id: string) => row(id)?.name)
    snapshot.refresh()
    expect(find('1')).toBe('first')
    const other = openDatabase({ dialect: 'sqlite', filename: join(dir, 'q.db') })
    await sql`update items set name = 'from elsewhere' where id = '1'`.execute(other.db)
    await other.close()
    await nextTurn()
    snapshot.refresh()
    expect(find('1')).toBe('from elsewhere')
  })

  it('reads the version once per turn of the event loop: requests of one poll phase share it', async () => {
    const snapshot = createSnapshot(reader)
    const row = prepareLookup(reader, (id: string) =>
      writer.selectFrom('items').select('name').where('account', '=', 'a').where('id', '=', id),
    )
    const find = snapshot.memo((id: string) => row(id)?.name)
    await nextTurn()
    snapshot.refresh()
    expect(find('1')).toBe('first')
    await writer.updateTable('items').set({ name: 'in the same turn' }).where('id', '=', '1').execute()
    // The same turn: its requests were read before this commit, so the kept answer stands.
    snapshot.refresh()
    expect(find('1')).toBe('first')
    await nextTurn()
    snapshot.refresh()
    expect(find('1')).toBe('in the same turn')
  })
})
