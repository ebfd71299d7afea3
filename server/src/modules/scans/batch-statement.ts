import { type Compilable, CompiledQuery } from 'kysely'
import type { Db, Dialect } from '../../db/database.js'

/** Rows per statement, a power of two: at 10 columns well under SQLite's 32,766 bound parameters. */
const MAX_ROWS = 512

/** 1000 rows → 512, 256, 128, 64, 32, 8: a handful of shapes to compile, whatever the batch. */
function* statementSizes(count: number): Generator<number> {
  while (count > 0) {
    const size = count >= MAX_ROWS ? MAX_ROWS : 2 ** Math.floor(Math.log2(count))
    yield size
    count -= size
  }
}

/**
 * A multi-row statement of one fixed shape, compiled by Kysely once per dialect and row
 * count and then run with fresh parameters. Building a 500-row insert through Kysely costs
 * more than SQLite's work to store it, and scan batches are written every second.
 */
export class BatchStatement<Row extends object> {
  private readonly compiled = new Map<string, string>()

  constructor(
    private readonly columns: readonly (keyof Row & string)[],
    private readonly build: (db: Db, rows: Row[]) => Compilable,
  ) {}

  async run(db: Db, dialect: Dialect, rows: Row[]): Promise<void> {
    let offset = 0
    for (const size of statementSizes(rows.length)) {
      const part = rows.slice(offset, offset + size)
      offset += size
      const parameters: unknown[] = []
      for (const row of part) for (const column of this.columns) parameters.push(row[column])
      await db.executeQuery(CompiledQuery.raw(this.sqlFor(db, dialect, part), parameters))
    }
  }

  private sqlFor(db: Db, dialect: Dialect, part: Row[]): string {
    const key = `${dialect}:${part.length}`
    const cached = this.compiled.get(key)
    if (cached !== undefined) return cached
    // Rows rebuilt with exactly these columns, in this order, so the parameters line up.
    const shaped = part.map((row) => Object.fromEntries(this.columns.map((c) => [c, row[c]])) as Row)
    const query = this.build(db, shaped).compile()
    const expected = shaped.flatMap((row) => this.columns.map((c) => row[c]))
    if (query.parameters.length !== expected.length || query.parameters.some((p, i) => p !== expected[i]))
      throw new Error('batch statement: compiled parameters do not follow the column order')
    this.compiled.set(key, query.sql)
    return query.sql
  }
}
