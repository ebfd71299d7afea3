import { existsSync } from 'node:fs'
import SqliteDatabase from 'better-sqlite3'
import type { DatabaseTarget } from '../config.js'

/** Pages copied per step; between steps the server's writers go on (WAL never blocks them). */
const PAGES_PER_STEP = 1000

/**
 * `qrctl-server backup FILE`: an online copy of the SQLite database through SQLite's backup
 * API (better-sqlite3's `db.backup()`), taken while the server runs. It reads through a
 * read-only connection a step of pages at a time, so it never holds a lock for long and, in
 * WAL mode, never blocks a writer; a change committed meanwhile makes SQLite copy the changed
 * pages again, so the file is one consistent snapshot. PostgreSQL has its own tool.
 */
export async function backupDatabase(target: DatabaseTarget, file: string): Promise<{ pages: number }> {
  if (target.dialect === 'postgres')
    throw new Error(
      'backup copies a SQLite database; on PostgreSQL use pg_dump, e.g. ' +
        'pg_dump --format=custom --file=qrctl.dump "$DATABASE_URL" (restore with pg_restore), see docs/operations.md',
    )
  if (target.filename === ':memory:') throw new Error('an in-memory database cannot be backed up')
  if (!existsSync(target.filename)) throw new Error(`no database at ${target.filename}`)
  if (existsSync(file)) throw new Error(`${file} already exists; back up to a new file`)
  const source = new SqliteDatabase(target.filename, { readonly: true, fileMustExist: true })
  source.pragma('busy_timeout = 100')
  try {
    const result = await source.backup(file, { progress: () => PAGES_PER_STEP })
    return { pages: result.totalPages }
  } finally {
    source.close()
  }
}
