import { type Compilable, CompiledQuery } from 'kysely'
import type { Db, Dialect } from '../../db/database.js'

/**
 * Lets waiting requests run between the statements of a batch: SQLite runs each one
 * synchronously, so a large batch would otherwise hold the event loop for its whole length.
 */
export const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Rows per statement, a power of two. Each statement runs synchronously on the event loop, so it
 * is kept small: at 64 rows a redirect waits about a millisecond behind a batch write, not eight
 * (p99 1.3× the baseline instead of 2.9×, docs/performance.md), and throughput did not drop.
 */
const MAX_ROWS = 64

/** 1000 rows → 15 × 64, 32, 8: a handful of shapes to compile, whatever the batch. */
export function* statementSizes(count: number): Generator<number> {
  while (count > 0) {
    const size = count >= MAX_ROWS ? MAX_ROWS : 2 ** Math.floor(Math.log2(count))
    yield size
    count -= size
  }
}

/**
 * A query of one fixed shape, compiled by Kysely once per dialect and size and then run
 * with fresh parameters. Building a 500-row statement through Kysely costs more than
 * SQLite's work to run it, and scan batches are written every second.
 */
export class QueryShape<Input> {
  private readonly compiled = new Map<string, string>()

  constructor(
    private readonly build: (db: Db, input: Input) => Compilable,
    private readonly parameters: (input: Input) => unknown[],
  ) {}

  async execute<R>(db: Db, dialect: Dialect, size: number, input: Input): Promise<R[]> {
    const parameters = this.parameters(input)
    const key = `${dialect}:${size}`
    let text = this.compiled.get(key)
    if (text === undefined) {
      const query = this.build(db, input).compile()
      if (
        query.parameters.length !== parameters.length ||
        query.parameters.some((p, i) => p !== parameters[i])
      )
        throw new Error('query shape: compiled parameters differ from the given ones')
      text = query.sql
      this.compiled.set(key, text)
    }
    return (await db.executeQuery<R>(CompiledQuery.raw(text, parameters))).rows
  }

  /**
   * Runs the query over `items` (the values of an IN list) in statements of a few fixed sizes,
   * `input` building each statement's input from its part; returns every statement's rows.
   */
  async executeInParts<R, Item>(
    db: Db,
    dialect: Dialect,
    items: readonly Item[],
    input: (part: Item[]) => Input,
  ): Promise<R[]> {
    const found: R[] = []
    let offset = 0
    for (const size of statementSizes(items.length)) {
      const rows = await this.execute<R>(db, dialect, size, input(items.slice(offset, offset + size)))
      offset += size
      for (const row of rows) found.push(row)
    }
    return found
  }
}

/** A multi-row insert or upsert of fixed columns, in statements of a few fixed sizes. */
export class BatchStatement<Row extends object> {
  private readonly shape: QueryShape<Row[]>

  constructor(columns: readonly (keyof Row & string)[], build: (db: Db, rows: Row[]) => Compilable) {
    // Rows are rebuilt with exactly these columns, in this order, so the parameters line up.
    this.shape = new QueryShape(
      (db, rows) =>
        build(
          db,
          rows.map((row) => Object.fromEntries(columns.map((c) => [c, row[c]])) as Row),
        ),
      (rows) => {
        const parameters: unknown[] = []
        for (const row of rows) for (const column of columns) parameters.push(row[column])
        return parameters
      },
    )
  }

  /** Runs the rows in statements of a few fixed sizes; returns what they return (RETURNING). */
  async run<R = never>(db: Db, dialect: Dialect, rows: Row[]): Promise<R[]> {
    const returned: R[] = []
    let offset = 0
    for (const size of statementSizes(rows.length)) {
      if (offset > 0) await yieldToRequests()
      returned.push(...(await this.shape.execute<R>(db, dialect, size, rows.slice(offset, offset + size))))
      offset += size
    }
    return returned
  }
}
