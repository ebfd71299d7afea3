import SqliteDatabase from 'better-sqlite3'
import { Kysely, SqliteDialect, sql } from 'kysely'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Db } from '../../db/database.js'
import { createScanReservations } from './scan-reservations.js'

describe('createScanReservations', () => {
  let kysely: Kysely<unknown> | undefined
  afterEach(() => kysely?.destroy())

  async function setUp(codes: Record<string, number | null>) {
    const sqlite = new SqliteDatabase(':memory:')
    kysely = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) })
    await sql`create table qr_codes (id text primary key, scans_reserved integer not null default 0, max_scans integer)`.execute(
      kysely,
    )
    for (const [id, max] of Object.entries(codes))
      await sql`insert into qr_codes (id, max_scans) values (${id}, ${max})`.execute(kysely)
    const db = kysely as unknown as Db
    const transaction = vi.spyOn(db, 'transaction')
    const reserved = async (id: string) =>
      (
        await sql<{ n: number }>`select scans_reserved as n from qr_codes where id = ${id}`.execute(
          kysely as Kysely<unknown>,
        )
      ).rows[0]?.n
    return { reservations: createScanReservations({ db, dialect: 'sqlite' }), transaction, reserved }
  }

  it('takes exactly the scans left when many arrive at once, numbered in order, in one transaction', async () => {
    const { reservations, transaction, reserved } = await setUp({ a: 5, b: 2 })
    const a = Array.from({ length: 12 }, () => reservations.reserve('a'))
    const b = Array.from({ length: 3 }, () => reservations.reserve('b'))
    expect((await Promise.all(a)).map((taken) => taken?.reserved)).toEqual([
      1,
      2,
      3,
      4,
      5,
      ...Array(7).fill(undefined),
    ])
    expect((await Promise.all(b)).map((taken) => taken && `${taken.reserved}/${taken.maxScans}`)).toEqual([
      '1/2',
      '2/2',
      undefined,
    ])
    expect(transaction).toHaveBeenCalledTimes(1)
    expect(await reserved('a')).toBe(5)
    expect(await reserved('b')).toBe(2)
  })

  it('takes a lone scan with one statement, and none from a code without a limit', async () => {
    const { reservations, transaction, reserved } = await setUp({ a: 1, open: null })
    expect(await reservations.reserve('a')).toEqual({ reserved: 1, maxScans: 1 })
    expect(await reservations.reserve('a')).toBeUndefined()
    expect(await reservations.reserve('open')).toBeUndefined()
    expect(transaction).not.toHaveBeenCalled()
    expect(await reserved('open')).toBe(0)
  })

  it('gathers the scans that arrive while a write is under way into the next one', async () => {
    const { reservations, transaction, reserved } = await setUp({ a: 100 })
    const first = reservations.reserve('a')
    const later = new Promise<unknown[]>((resolve) =>
      setImmediate(() => resolve(Array.from({ length: 4 }, () => reservations.reserve('a')))),
    )
    await first
    const taken = await Promise.all((await later) as Promise<{ reserved: number } | undefined>[])
    expect(taken.map((t) => t?.reserved)).toEqual([2, 3, 4, 5])
    expect(transaction).toHaveBeenCalledTimes(1)
    expect(await reserved('a')).toBe(5)
  })

  it('rejects every scan of a write that failed, and keeps taking scans after it', async () => {
    const { reservations } = await setUp({ a: 10 })
    await sql`drop table qr_codes`.execute(kysely as Kysely<unknown>)
    const failed = await Promise.allSettled([reservations.reserve('a'), reservations.reserve('a')])
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected'])
    await sql`create table qr_codes (id text primary key, scans_reserved integer not null default 0, max_scans integer)`.execute(
      kysely as Kysely<unknown>,
    )
    await sql`insert into qr_codes (id, max_scans) values ('a', 1)`.execute(kysely as Kysely<unknown>)
    expect(await reservations.reserve('a')).toEqual({ reserved: 1, maxScans: 1 })
  })
})
