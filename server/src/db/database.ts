import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import {
  type Driver,
  Kysely,
  type SqliteDatabase as KyselySqliteDatabase,
  type MigrationResultSet,
  Migrator,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  sql,
} from 'kysely'
import pg from 'pg'
import Cursor from 'pg-cursor'
import type { DatabaseTarget } from '../config.js'
import { isRetryableWriteError } from './errors.js'
import { migrations } from './migrations/index.js'
import type { Database } from './schema.js'
import { LockWaitingSqliteDriver } from './sqlite-driver.js'

export type Dialect = DatabaseTarget['dialect']
export type Db = Kysely<Database>

export interface DatabaseHandle {
  db: Db
  dialect: Dialect
  close(): Promise<void>
}

/** The longest a statement may block the event loop waiting for SQLite's lock. */
export const SQLITE_BUSY_TIMEOUT_MS = 10

// pg answers bigint (count, sums) as strings; counts here stay far below 2^53.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10))

/**
 * `onConnectionError` hears about pooled PostgreSQL connections the server closed (restart,
 * failover, an administrator's `pg_terminate_backend`), idle or checked out. pg-pool listens
 * on idle clients only and emits `error` on the pool; a client checked out by a query emits
 * `error` itself, and an `error` event without a listener ends the process (issue #12). So
 * every client gets a listener of its own when it connects: the query in flight fails (and
 * answers 503, see errors.ts), pg-pool discards the broken client on release, and the next
 * checkout opens a new connection, so the pool recovers by itself once the database is back.
 */
export function openDatabase(
  target: DatabaseTarget,
  onConnectionError: (error: Error) => void = () => {},
  /** PostgreSQL connections at most (under WORKERS=N, each worker's share of DATABASE_POOL_SIZE). */
  poolSize = 10,
  /** SQLite: how long a statement may wait for the lock, blocking its thread; 0 backs off at once. */
  busyTimeoutMs = SQLITE_BUSY_TIMEOUT_MS,
): DatabaseHandle {
  if (target.dialect === 'postgres') {
    const pool = new pg.Pool({
      connectionString: target.connectionString,
      max: poolSize,
      // While the database is unreachable a request waits at most this long for a connection,
      // then answers 503, rather than queueing until the client gives up.
      connectionTimeoutMillis: 3000,
      keepAlive: true,
    })
    pool.on('error', onConnectionError)
    pool.on('connect', (client) => client.on('error', onConnectionError))
    // The cursor serves `.stream()` (the CSV export): rows in bounded batches from one query.
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool, cursor: Cursor }) })
    return { db, dialect: 'postgres', close: () => db.destroy() }
  }
  if (target.filename !== ':memory:') mkdirSync(dirname(target.filename), { recursive: true })
  const sqlite = new SqliteDatabase(target.filename)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('foreign_keys = ON')
  // Milliseconds, not seconds: this wait blocks the thread. A longer wait for another
  // process's (or thread's) lock happens asynchronously in LockWaitingSqliteDriver (issue #12).
  sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`)
  sqlite.pragma('synchronous = NORMAL')
  const db = new Kysely<Database>({
    dialect: new TransactionalDdlSqliteDialect(withStatementCache(sqlite)),
  })
  return { db, dialect: 'sqlite', close: () => db.destroy() }
}

/**
 * SQLite runs schema changes inside transactions, but Kysely's adapter says it cannot, so its
 * migrator runs migrations bare and takes no lock: two processes starting on a fresh file
 * both created the first table, and one failed half-migrated. Told the truth, the migrator
 * applies all pending migrations in one transaction; a second process waits for the file's
 * lock or fails with SQLITE_BUSY and tries again (`migrateToLatest`), finding them applied.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true
  }
}

class TransactionalDdlSqliteDialect extends SqliteDialect {
  constructor(private readonly database: KyselySqliteDatabase) {
    super({ database })
  }

  override createAdapter(): TransactionalDdlSqliteAdapter {
    return new TransactionalDdlSqliteAdapter()
  }

  override createDriver(): Driver {
    return new LockWaitingSqliteDriver(this.database)
  }
}

/**
 * Kysely's SQLite driver prepares every query anew; preparing costs about as much as running a
 * small indexed lookup. The queries come from a few code paths, so their SQL repeats: keep the
 * prepared statements, least recently used out first. A statement still busy streaming rows is
 * never handed out twice.
 */
export function withStatementCache(
  database: SqliteDatabase.Database,
  maxStatements = 256,
): KyselySqliteDatabase {
  const statements = new Map<string, SqliteDatabase.Statement>()
  return {
    close: () => database.close(),
    prepare(sqlText) {
      const cached = statements.get(sqlText)
      if (cached && !cached.busy) {
        statements.delete(sqlText)
        statements.set(sqlText, cached)
        return cached
      }
      const statement = database.prepare(sqlText)
      statements.set(sqlText, statement)
      if (statements.size > maxStatements) statements.delete(statements.keys().next().value as string)
      return statement
    },
  }
}

/**
 * Applies pending migrations, in one transaction. On PostgreSQL, Kysely takes an advisory lock,
 * so a second process waits its turn. On SQLite the loser of two processes starting at once
 * gets SQLITE_BUSY (or a clash creating Kysely's own tables) and tries again, by which time
 * the winner has applied everything.
 */
export async function migrateToLatest(db: Db, attempts = 20): Promise<MigrationResultSet> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
  for (let attempt = 1; ; attempt++) {
    const result = await migrator.migrateToLatest()
    if (!result.error) return result
    if (attempt >= attempts || !isRetryableWriteError(result.error)) throw result.error
    await new Promise((resolve) => setTimeout(resolve, 25 * attempt))
  }
}

export async function isDatabaseReady(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db)
    return true
  } catch {
    return false
  }
}
