import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import { Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { withStatementCache } from './database.js'
import { fromDatabaseError } from './errors.js'
import { LockWaitingSqliteDriver } from './sqlite-driver.js'

interface Tables {
  t: { n: number }
}

describe('LockWaitingSqliteDriver', () => {
  let dir: string
  let file: string
  const closers: (() => unknown)[] = []

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'qrctl-driver-'))
    file = join(dir, 'db.sqlite')
    const setup = new SqliteDatabase(file)
    setup.pragma('journal_mode = WAL')
    setup.exec('create table t (n integer)')
    setup.close()
  })
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close()
    rmSync(dir, { recursive: true, force: true })
  })

  function open(lockWaitMs: number) {
    const sqlite = new SqliteDatabase(file)
    sqlite.pragma('busy_timeout = 10')
    const db = new Kysely<Tables>({
      dialect: {
        createAdapter: () => new SqliteAdapter(),
        createDriver: () => new LockWaitingSqliteDriver(withStatementCache(sqlite), lockWaitMs),
        createIntrospector: (k) => new SqliteIntrospector(k),
        createQueryCompiler: () => new SqliteQueryCompiler(),
      },
    })
    closers.push(() => db.destroy())
    return db
  }

  /** Another connection (as another process would) holding the write lock. */
  function holdLock() {
    const other = new SqliteDatabase(file)
    other.exec('begin exclusive')
    closers.push(() => other.open && other.close())
    return () => {
      other.exec('rollback')
      other.close()
    }
  }

  it('waits for another connection’s lock without blocking the event loop, then writes', async () => {
    const db = open(3000)
    const release = holdLock()
    let ticks = 0
    const ticker = setInterval(() => ticks++, 10)
    const write = db.transaction().execute((trx) => trx.insertInto('t').values({ n: 1 }).execute())
    const autocommit = db.insertInto('t').values({ n: 2 }).execute()
    // Reads go on meanwhile (WAL): the connection is given back while writes wait.
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await db.selectFrom('t').selectAll().execute()).toEqual([])
    await new Promise((resolve) => setTimeout(resolve, 150))
    release()
    await Promise.all([write, autocommit])
    clearInterval(ticker)
    expect(ticks).toBeGreaterThan(5)
    const rows = await db.selectFrom('t').select('n').orderBy('n').execute()
    expect(rows).toEqual([{ n: 1 }, { n: 2 }])
  })

  it('gives up after its wait with SQLITE_BUSY, which answers 503 service_unavailable', async () => {
    const db = open(100)
    holdLock()
    const error = await db
      .transaction()
      .execute((trx) => trx.insertInto('t').values({ n: 1 }).execute())
      .catch((e: unknown) => e)
    expect((error as { code?: string }).code).toMatch(/^SQLITE_BUSY/)
    expect(fromDatabaseError(error)).toMatchObject({
      code: 'service_unavailable',
      details: { retryAfter: 1 },
    })
    // The connection is usable again: nothing was left half open.
    expect(await sql`select 1 as one`.execute(db)).toMatchObject({ rows: [{ one: 1 }] })
  })

  it('starts a read-only transaction deferred, so it reads past the lock', async () => {
    const db = open(100)
    holdLock()
    const rows = await db
      .transaction()
      .setAccessMode('read only')
      .execute((trx) => trx.selectFrom('t').selectAll().execute())
    expect(rows).toEqual([])
  })
})
