import SqliteDatabase from 'better-sqlite3'
import type { CompiledQuery } from 'kysely'
import type { DatabaseTarget } from '../config.js'

/**
 * A read-only connection for the hot paths (short links, images), on a SQLite file only.
 *
 * Kysely's SQLite driver runs every query through its one connection, behind a mutex, so a
 * lookup waits for a batch of scan writes; and it builds and compiles each query anew. The
 * reader runs statements prepared once, synchronously. WAL mode lets it read while the writer
 * writes, and it sees every committed change at once. PostgreSQL (and an in-memory SQLite,
 * which no second connection can open) have no reader: their lookups go through Kysely.
 */
export type Reader = SqliteDatabase.Database

/** Opens after migrations ran: the file must exist. */
export function openReader(target: DatabaseTarget): Reader | undefined {
  if (target.dialect !== 'sqlite' || target.filename === ':memory:') return undefined
  const reader = new SqliteDatabase(target.filename, { readonly: true, fileMustExist: true })
  // WAL readers do not wait for writers; this covers the rare recovery of a crashed writer's
  // WAL without blocking the event loop for long (issue #12).
  reader.pragma('busy_timeout = 100')
  return reader
}

/** A Kysely query that `prepareLookup` can compile once and run again with other arguments. */
interface Compilable<R> {
  compile(): CompiledQuery<R>
}

/**
 * One row of `build(...args)`, the query the repositories use, without its per-call cost: the
 * SQL is compiled and prepared on the reader once. `build` is called with sentinel arguments
 * to learn where each one lands among the statement's parameters (constants the query holds
 * itself keep their place), so the statement always matches what Kysely would run.
 *
 * @example
 *   const findCode = prepareLookup(reader, (accountId: string, id: string) => qrCodeQuery(db, accountId, id))
 *   findCode(accountId, id) // the row or undefined
 */
export function prepareLookup<A extends string[], R>(
  reader: Reader,
  build: (...args: A) => Compilable<R>,
): (...args: A) => R | undefined {
  const sentinels = Array.from({ length: build.length }, (_, i) => `\u0000qrctl-argument-${i}`) as A
  const compiled = build(...sentinels).compile()
  const slots = compiled.parameters.map((value): { argument: number } | { value: unknown } => {
    const argument = sentinels.indexOf(value as string)
    return argument === -1 ? { value } : { argument }
  })
  if (sentinels.some((_, i) => !slots.some((slot) => 'argument' in slot && slot.argument === i)))
    throw new Error(
      `prepareLookup: an argument of ${build.name || 'the query'} is not a parameter of its SQL`,
    )
  const statement = reader.prepare<unknown[], R>(compiled.sql)
  return (...args) =>
    statement.get(...slots.map((slot) => ('argument' in slot ? args[slot.argument] : slot.value)))
}

/**
 * Answers kept until the database changes. `PRAGMA data_version` on the reader moves whenever
 * any other connection (this process's writer, an admin command, another process) commits;
 * `refresh()` reads it and drops every kept answer when it moved. A request calls `refresh()`
 * once, before its lookups, so nothing it is told predates a commit that finished before it
 * arrived: a revoked key or a PATCHed code is seen by the very next request.
 *
 * The version is read once per turn of the event loop, not once per request: reading it takes
 * the WAL's read lock (about 2 µs, a tenth of an uncounted redirect), and under load one turn's
 * poll phase serves many requests. That keeps the promise above. The requests of one poll
 * phase were on their sockets when the phase began, before the first of them read the version;
 * a client who waits for a change (a PATCH answered here, or by another process) sends its
 * next request after that answer, which a later turn reads. So `refresh()` belongs in a
 * request's handler (the poll phase), as the fast paths call it; the turn ends in the check
 * phase (`setImmediate`).
 */
export interface Snapshot {
  refresh(): void
  /** `find`, with its answers kept until `refresh()` sees a change (at most `maxEntries`). */
  memo<A extends string[], R>(
    find: (...args: A) => R | undefined,
    maxEntries?: number,
  ): (...args: A) => R | undefined
}

export function createSnapshot(reader: Reader): Snapshot {
  const dataVersion = reader.prepare<[], number>('pragma data_version').pluck()
  const kept: Map<string, unknown>[] = []
  let version: number | undefined
  /** Whether this turn of the event loop has read the version. */
  let checked = false
  const endTurn = () => {
    checked = false
  }
  return {
    refresh() {
      if (checked) return
      checked = true
      setImmediate(endTurn)
      const current = dataVersion.get()
      if (current === version) return
      version = current
      for (const answers of kept) answers.clear()
    },
    memo<A extends string[], R>(find: (...args: A) => R | undefined, maxEntries = 10_000) {
      const answers = new Map<string, R | undefined>()
      kept.push(answers)
      return (...args: A) => {
        const key = args.length === 1 ? (args[0] as string) : args.join('\u0000')
        if (answers.has(key)) return answers.get(key)
        const answer = find(...args)
        if (answers.size >= maxEntries) answers.clear()
        answers.set(key, answer)
        return answer
      }
    },
  }
}
