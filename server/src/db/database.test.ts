import SqliteDatabase from 'better-sqlite3'
import { Kysely, SqliteDialect, sql } from 'kysely'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { withStatementCache } from './database.js'

describe('withStatementCache', () => {
  const opened: SqliteDatabase.Database[] = []
  afterEach(() => {
    for (const db of opened.splice(0)) if (db.open) db.close()
  })

  function open() {
    const sqlite = new SqliteDatabase(':memory:')
    opened.push(sqlite)
    const prepare = vi.spyOn(sqlite, 'prepare')
    return { sqlite, prepare }
  }

  it('prepares each distinct SQL text once and answers as before', async () => {
    const { sqlite, prepare } = open()
    const db = new Kysely<{ t: { n: number } }>({
      dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
    })
    await sql`create table t (n integer)`.execute(db)
    for (let i = 0; i < 5; i++) await db.insertInto('t').values({ n: i }).execute()
    const rows = []
    for (let i = 0; i < 5; i++)
      rows.push(await db.selectFrom('t').select('n').where('n', '=', i).executeTakeFirst())
    expect(rows).toEqual([0, 1, 2, 3, 4].map((n) => ({ n })))
    expect(prepare).toHaveBeenCalledTimes(3)
  })

  it('keeps at most maxStatements, dropping the least recently used', () => {
    const { sqlite, prepare } = open()
    const cached = withStatementCache(sqlite, 2)
    cached.prepare('select 1')
    cached.prepare('select 2')
    cached.prepare('select 1')
    cached.prepare('select 3')
    cached.prepare('select 1')
    expect(prepare).toHaveBeenCalledTimes(3)
    cached.prepare('select 2')
    expect(prepare).toHaveBeenCalledTimes(4)
  })

  it('prepares a fresh statement while the cached one is still streaming rows', () => {
    const { sqlite } = open()
    const cached = withStatementCache(sqlite)
    const first = cached.prepare('select 1 union all select 2')
    const rows = first.iterate([])
    rows.next()
    const second = cached.prepare('select 1 union all select 2')
    expect(second).not.toBe(first)
    expect(second.all([])).toHaveLength(2)
    rows.return?.()
  })
})
