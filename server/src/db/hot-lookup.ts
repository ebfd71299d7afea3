import type { CompiledQuery } from 'kysely'
import { createSnapshot, prepareLookup, type Reader } from './reader.js'

/** A repository's query for one row: compiled once on the reader, or run through Kysely. */
interface RowQuery<R> {
  compile(): CompiledQuery<R>
  executeTakeFirst(): Promise<R | undefined>
}

/** A lookup by the repository's own query, synchronous where the driver allows. */
export type HotLookup<A extends string[], T> = (...args: A) => T | undefined | Promise<T | undefined>

export interface HotLookups {
  /** Call once per request, before its lookups: drops kept answers when the database changed. */
  refresh(): void
  lookup<A extends string[], R, T>(
    build: (...args: A) => RowQuery<R>,
    toDomain: (row: R) => T,
  ): HotLookup<A, T>
}

/**
 * The one choice between the SQLite reader and Kysely for the hot paths' lookups (short
 * links, images). On a SQLite file the query runs on the read-only reader with its statement
 * prepared once, its answers kept until the database changes (`PRAGMA data_version`, see
 * reader.ts), so a revoked key or a PATCHed target is seen by the very next request.
 * PostgreSQL (and an in-memory SQLite) go through Kysely, the same query, every time.
 */
export function createHotLookups(reader: Reader | undefined): HotLookups {
  if (!reader) {
    return {
      refresh: () => {},
      lookup:
        (build, toDomain) =>
        async (...args) => {
          const row = await build(...args).executeTakeFirst()
          return row && toDomain(row)
        },
    }
  }
  const snapshot = createSnapshot(reader)
  return {
    refresh: () => snapshot.refresh(),
    lookup: (build, toDomain) => {
      const findRow = prepareLookup(reader, build)
      return snapshot.memo((...args) => {
        const row = findRow(...args)
        return row && toDomain(row)
      })
    },
  }
}
