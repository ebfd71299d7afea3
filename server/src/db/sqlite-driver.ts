import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SqliteDatabase,
  type TransactionSettings,
} from 'kysely'
import { isLockedError } from './errors.js'

/**
 * How long a write waits for a lock another process holds (a backup, the `sqlite3` shell,
 * another worker), in total, before it answers 503 `service_unavailable` (issue #12).
 */
export const LOCK_WAIT_MS = 3000
const FIRST_BACKOFF_MS = 5
const MAX_BACKOFF_MS = 200

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Kysely's one-connection mutex, which the waiting below gives up while it sleeps. */
class Mutex {
  private held: Promise<void> | undefined
  private release: (() => void) | undefined

  async lock(): Promise<void> {
    while (this.held) await this.held
    this.held = new Promise((resolve) => {
      this.release = resolve
    })
  }

  unlock(): void {
    const release = this.release
    this.held = undefined
    this.release = undefined
    release?.()
  }
}

/**
 * Kysely's SQLite driver, changed where a lock held by another process meets it.
 *
 * better-sqlite3 is synchronous: its `busy_timeout` waits for a lock by blocking the event
 * loop, so one write could freeze every request on the process for seconds (issue #12:
 * `/healthz` 6,039 ms). Here busy_timeout is a few milliseconds (database.ts), and a statement
 * refused with SQLITE_BUSY is tried again after an asynchronous backoff, for at most
 * `LOCK_WAIT_MS`, then fails (and answers 503). While it waits it gives the connection back,
 * so reads keep being answered (WAL lets them read past the other process's lock).
 *
 * Only statements that are safe to repeat are repeated: one outside a transaction (it did
 * nothing), or the `BEGIN` of one. A writing transaction starts with `BEGIN IMMEDIATE`,
 * taking the write lock before its first statement, so nothing inside it meets the lock
 * half-way through its work; a read-only one (`setAccessMode('read only')`) starts deferred
 * and never waits.
 */
export class LockWaitingSqliteDriver implements Driver {
  private readonly mutex = new Mutex()
  private connection: LockWaitingConnection | undefined

  constructor(
    private readonly database: SqliteDatabase,
    private readonly lockWaitMs = LOCK_WAIT_MS,
  ) {}

  async init(): Promise<void> {
    this.connection = new LockWaitingConnection(this.database, (attempt) => this.wait(attempt))
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.mutex.lock()
    return this.connection as LockWaitingConnection
  }

  async releaseConnection(): Promise<void> {
    this.mutex.unlock()
  }

  /** Sleeps before another try, without holding the connection; false once the budget is spent. */
  private async wait(startedAt: number): Promise<boolean> {
    const waited = performance.now() - startedAt
    if (waited >= this.lockWaitMs) return false
    const backoff = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.floor(Math.log2(1 + waited / 10)))
    this.mutex.unlock()
    await sleep(Math.min(backoff, this.lockWaitMs - waited))
    await this.mutex.lock()
    return true
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const begin = settings.accessMode === 'read only' ? 'begin' : 'begin immediate'
    await (connection as LockWaitingConnection).begin(begin)
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as LockWaitingConnection).end('commit')
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as LockWaitingConnection).end('rollback')
  }

  async destroy(): Promise<void> {
    this.database.close()
  }
}

class LockWaitingConnection implements DatabaseConnection {
  private inTransaction = false

  constructor(
    private readonly db: SqliteDatabase,
    private readonly wait: (startedAt: number) => Promise<boolean>,
  ) {}

  async begin(sql: string): Promise<void> {
    await this.withLockWait(() => this.run(CompiledQuery.raw(sql)))
    this.inTransaction = true
  }

  async end(sql: 'commit' | 'rollback'): Promise<void> {
    // A failed COMMIT keeps the transaction open: Kysely rolls it back next, which ends it.
    if (sql === 'commit') {
      this.run(CompiledQuery.raw(sql))
      this.inTransaction = false
      return
    }
    try {
      this.run(CompiledQuery.raw(sql))
    } finally {
      this.inTransaction = false
    }
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.inTransaction) return this.run(query)
    return this.withLockWait(() => this.run(query))
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const statement = this.db.prepare(query.sql)
    for (const row of statement.iterate(query.parameters as unknown[])) yield { rows: [row as R] }
  }

  private async withLockWait<T>(run: () => T): Promise<T> {
    const startedAt = performance.now()
    for (;;) {
      try {
        return run()
      } catch (error) {
        if (!isLockedError(error) || !(await this.wait(startedAt))) throw error
      }
    }
  }

  private run<R>(query: CompiledQuery): QueryResult<R> {
    const statement = this.db.prepare(query.sql)
    const parameters = query.parameters as unknown[]
    if (statement.reader) return { rows: statement.all(parameters) as R[] }
    const { changes, lastInsertRowid } = statement.run(parameters)
    return {
      numAffectedRows: changes === undefined || changes === null ? undefined : BigInt(changes),
      insertId:
        lastInsertRowid === undefined || lastInsertRowid === null ? undefined : BigInt(lastInsertRowid),
      rows: [],
    }
  }
}
