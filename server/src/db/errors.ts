import { AppError, serviceUnavailable } from '../errors.js'

/** True for a unique-constraint violation on either dialect (SQLite's code, PostgreSQL's 23505). */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('code' in error)) return false
  const code = (error as { code: unknown }).code
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505'
}

// PostgreSQL: deadlock_detected, serialization_failure. SQLite: another process holds the lock.
const TRANSIENT_CODES = new Set(['40P01', '40001', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT'])

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined
  const code = (error as { code: unknown }).code
  return typeof code === 'string' ? code : undefined
}

/** Errors after which the same write, tried again, can succeed. */
export function isRetryableWriteError(error: unknown): boolean {
  if (isUniqueViolation(error)) return true
  const code = codeOf(error)
  return code !== undefined && TRANSIENT_CODES.has(code)
}

/** SQLite: another process holds the write lock (busy_timeout is kept tiny, see database.ts). */
export function isLockedError(error: unknown): boolean {
  return codeOf(error)?.startsWith('SQLITE_BUSY') ?? false
}

// Socket-level failures reaching PostgreSQL (refused, reset, timed out, name not resolved).
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])
// SQLSTATE 57P01-03: the server is shutting down, crashed or still starting; 53300: too many
// connections; 53100: disk full.
const PG_UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '53300', '53100'])
// pg raises these without a code when a connection dies or the pool cannot get one in time.
const PG_UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'is not queryable',
  'Query read timeout',
]

/**
 * The database cannot be reached (PostgreSQL down, restarting, a connection cut, no disk) or
 * the SQLite file is locked by another process: a 503 the client may retry, never a 500.
 */
export function isUnavailableError(error: unknown): boolean {
  if (isLockedError(error)) return true
  const code = codeOf(error)
  if (code !== undefined) {
    if (NETWORK_CODES.has(code) || PG_UNAVAILABLE_CODES.has(code)) return true
    // Class 08: connection exception (SQLSTATE).
    if (/^08[0-9A-Z]{3}$/.test(code)) return true
    if (code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR')) return true
  }
  const message = error instanceof Error ? error.message : ''
  return PG_UNAVAILABLE_MESSAGES.some((m) => message.includes(m))
}

/** Seconds a client is told to wait: a lock is short, an outage longer. */
export const LOCKED_RETRY_AFTER_SECONDS = 1
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5

/** A database error as the 503 it means, or undefined when it means something else. */
export function fromDatabaseError(error: unknown): AppError | undefined {
  if (error instanceof AppError || !isUnavailableError(error)) return undefined
  return isLockedError(error)
    ? serviceUnavailable(LOCKED_RETRY_AFTER_SECONDS, 'The database is busy; retry shortly')
    : serviceUnavailable(UNAVAILABLE_RETRY_AFTER_SECONDS)
}
