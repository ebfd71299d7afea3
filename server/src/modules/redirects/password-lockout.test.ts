import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type DatabaseHandle, migrateToLatest } from '../../db/database.js'
import { openTestDatabase, testDialects } from '../../testing/fixtures.js'
import { pseudonym } from '../scans/scan-details.js'
import { LOCKOUT_WINDOW_MS, MAX_FAILURES, PasswordLockout } from './password-lockout.js'

const T0 = Date.parse('2026-11-28T10:00:00.000Z')
const hmac = (text: string) => pseudonym('test secret', text)

describe.each(testDialects)('PasswordLockout on %s', (dialect) => {
  let handle: DatabaseHandle
  let drop: () => Promise<void>
  beforeAll(async () => {
    ;({ handle, drop } = await openTestDatabase(dialect, 'lockout'))
    await migrateToLatest(handle.db)
  })
  afterAll(async () => await drop())

  it('counts each try from its start, refuses the eleventh until the oldest is a window old, and a right one clears', async () => {
    const lockout = new PasswordLockout({ db: handle.db }, hmac)
    const key = lockout.key('code-a', '203.0.113.9')
    expect(key).not.toContain('203.0.113.9')
    expect(lockout.key('code-a', '203.0.113.9')).toBe(key)
    expect(lockout.key('code-b', '203.0.113.9')).not.toBe(key)
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
})
