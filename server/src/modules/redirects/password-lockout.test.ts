import type { KyselyPlugin } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Config } from '../../config.js'
import { type DatabaseHandle, migrateToLatest } from '../../db/database.js'
import { openTestDatabase, testDialects } from '../../testing/fixtures.js'
import { LOCKOUT_WINDOW_MS, MAX_FAILURES, PasswordLockout } from './password-lockout.js'

const T0 = Date.parse('2026-11-28T10:00:00.000Z')
const config = { visitorSecret: undefined } as unknown as Config

/** Fails the next `n` queries, as a database that is away would. */
function failing(n: number): KyselyPlugin {
  return {
    transformQuery(args) {
      if (n-- > 0) throw new Error('connection refused')
      return args.node
    },
    transformResult: async (args) => args.result,
  }
}

describe.each(testDialects)('PasswordLockout on %s', (dialect) => {
  let handle: DatabaseHandle
  let drop: () => Promise<void>
  beforeAll(async () => {
    ;({ handle, drop } = await openTestDatabase(dialect, 'lockout'))
    await migrateToLatest(handle.db)
  })
  afterAll(async () => await drop())

  it('counts each try from its start, refuses the eleventh until the oldest is a window old, and a right one clears', async () => {
    const lockout = new PasswordLockout({ db: handle.db, config })
    const key = await lockout.key('code-a', '203.0.113.9')
    expect(key).not.toContain('203.0.113.9')
    expect(await lockout.key('code-a', '203.0.113.9')).toBe(key)
    expect(await lockout.key('code-b', '203.0.113.9')).not.toBe(key)
    // Ten tries at once are let through: each counts before its password is checked.
    const started = await Promise.all(
      Array.from({ length: MAX_FAILURES }, (_, i) => lockout.begin(key, T0 + i)),
    )
    expect(started).toEqual(Array(MAX_FAILURES).fill(0))
    expect(await lockout.begin(key, T0 + 10_000)).toBe(LOCKOUT_WINDOW_MS / 1000 - 10)
    expect(await lockout.begin(key, T0 + LOCKOUT_WINDOW_MS - 1)).toBe(1)
    expect(await lockout.begin(key, T0 + LOCKOUT_WINDOW_MS)).toBe(0)
    await lockout.clear(key)
    for (let i = 0; i < MAX_FAILURES; i++)
      expect(await lockout.begin(key, T0 + LOCKOUT_WINDOW_MS + i)).toBe(0)
  })

  it('loads the visitor secret again after a load that failed', async () => {
    const lockout = new PasswordLockout({ db: handle.db.withPlugin(failing(1)), config })
    await expect(lockout.key('code-a', '198.51.100.1')).rejects.toThrow('connection refused')
    const key = await lockout.key('code-a', '198.51.100.1')
    expect(key).toBe(await new PasswordLockout({ db: handle.db, config }).key('code-a', '198.51.100.1'))
  })
})
