import type { RequestHandler } from 'express'
import type { Ctx } from '../../context.js'
import { isUniqueViolation } from '../../db/errors.js'
import { conflict, invalidField } from '../../errors.js'
import { sha256Hex } from '../../lib/ids.js'
import * as repo from './idempotency.repository.js'

/** `{ data: { secret } }`: a new or rotated API key. */
function carriesSecret(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || !('data' in body)) return false
  const data = (body as { data: unknown }).data
  return typeof data === 'object' && data !== null && 'secret' in data
}

/** A key is remembered this long (DESIGN §6). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000

/** A request still pending after this long was cut off (its process died); a retry may run it again. */
export const PENDING_TIMEOUT_MS = 60_000

/**
 * `Idempotency-Key` on any POST: the same key and request within 24 hours answer the first
 * response again and do nothing; the same key with another request is a 409. The answer is
 * stored before it is sent, so a client that retries at once finds it. Server errors are
 * not stored: the retry runs again.
 */
export function idempotency(ctx: Ctx): RequestHandler {
  return async (req, res, next) => {
    const key = req.get('idempotency-key')
    if (req.method !== 'POST' || key === undefined) return next()
    if (key.length === 0 || key.length > 255) {
      return next(invalidField('Idempotency-Key', 'Idempotency-Key must be 1–255 characters'))
    }
    const accountId = req.auth.accountId
    const requestHash = sha256Hex(`${req.method} ${req.originalUrl}\n${JSON.stringify(req.body ?? null)}`)
    const now = ctx.clock.now()
    const stored = await repo.findStoredRequest(ctx.db, accountId, key)
    const age = stored ? now.getTime() - Date.parse(stored.createdAt) : 0
    const isPending = stored !== undefined && (stored.status === null || stored.responseBody === null)
    const isLive =
      stored !== undefined && age < IDEMPOTENCY_WINDOW_MS && !(isPending && age >= PENDING_TIMEOUT_MS)
    if (stored && isLive) {
      if (stored.requestHash !== requestHash) {
        return next(
          conflict('This Idempotency-Key was already used with a different request', {
            idempotencyKey: key,
            reason: 'mismatch',
          }),
        )
      }
      if (stored.status === null || stored.responseBody === null) {
        return next(
          conflict('A request with this Idempotency-Key is still in progress; retry shortly', {
            reason: 'in_progress',
            idempotencyKey: key,
          }),
        )
      }
      res.setHeader('Idempotent-Replayed', 'true')
      res.status(stored.status).type('application/json').send(stored.responseBody)
      return
    }
    // Expired, or pending so long its process must have died: the key is free again.
    if (stored) await repo.deleteStoredRequest(ctx.db, accountId, key)
    try {
      await repo.insertPendingRequest(ctx.db, accountId, key, requestHash, now.toISOString())
    } catch (error) {
      if (isUniqueViolation(error)) {
        return next(
          conflict('A request with this Idempotency-Key is still in progress; retry shortly', {
            reason: 'in_progress',
            idempotencyKey: key,
          }),
        )
      }
      throw error
    }
    const send = res.json.bind(res)
    res.json = (body: unknown) => {
      // A server error is not remembered, so the retry runs again. Neither is an answer that
      // carries an API key secret: only its hash is ever stored (DESIGN §3), so retrying a key
      // creation makes another key rather than replaying the secret from the database.
      const remember = res.statusCode < 500 && !carriesSecret(body)
      const done = remember
        ? repo.completeRequest(ctx.db, accountId, key, res.statusCode, JSON.stringify(body))
        : repo.deleteStoredRequest(ctx.db, accountId, key)
      done.then(
        () => send(body),
        (error: unknown) => {
          ctx.logger.error({ err: error, requestId: req.id }, 'could not store idempotent response')
          send(body)
        },
      )
      return res
    }
    next()
  }
}
