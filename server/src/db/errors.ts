/** True for a unique-constraint violation on either dialect (SQLite's code, PostgreSQL's 23505). */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('code' in error)) return false
  const code = (error as { code: unknown }).code
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505'
}

// PostgreSQL: deadlock_detected, serialization_failure. SQLite: another process holds the lock.
const TRANSIENT_CODES = new Set(['40P01', '40001', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT'])

/** Errors after which the same write, tried again, can succeed. */
export function isRetryableWriteError(error: unknown): boolean {
  if (isUniqueViolation(error)) return true
  if (typeof error !== 'object' || error === null || !('code' in error)) return false
  return TRANSIENT_CODES.has(String((error as { code: unknown }).code))
}
