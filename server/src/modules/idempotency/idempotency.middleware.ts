import type { RequestHandler } from 'express'
import type { Ctx } from '../../context.js'
import { isUniqueViolation } from '../../db/errors.js'
import { type BeforeCommit, noBeforeCommit } from '../../db/unit-of-work.js'
import { conflict, invalidField } from '../../errors.js'
import { sha256Hex } from '../../lib/ids.js'
import * as repo from './idempotency.repository.js'

/** `{ data: { secret } }`: a new or rotated API key. */
function carriesSecret(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || !('data' in body)) return false
  const data = (body as { data: unknown }).data
  return typeof data === 'object' && data !== null && 'secret' in data
}

/** Per request with an Idempotency-Key: stores its answer inside the transaction of its work. */
type AnswerInTransaction = (
  trx: Parameters<BeforeCommit<unknown>>[0],
  status: number,
  body: unknown,
) => Promise<void>
const answers = new WeakMap<object, AnswerInTransaction>()

/**
 * The `BeforeCommit` hook a router hands to the service that does a POST's work: with an
 * Idempotency-Key it stores `{ data: result }` under `status` in the same transaction as the
 * work (docs/decisions.md), so no crash can leave the work committed and its answer not;
 * without one it does nothing.
 */
export function answerOnCommit<T>(req: object, status: number): BeforeCommit<T> {
  const store = answers.get(req)
  if (!store) return noBeforeCommit
  return (trx, result) => store(trx, status, { data: result })
}

/** A key is remembered this long (DESIGN §6). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000

/**
 * `Idempotency-Key` on any POST: the same key and request within 24 hours answer the first
 * response again and do nothing; the same key with another request is a 409. A success that
 * changed data is stored by `answerOnCommit` in the transaction of its work; any other answer
 * (a 4xx, a dry run) changed nothing and is stored before it is sent, so a client that
 * retries at once finds it. Server errors are not stored: the retry runs again. A request
 * still pending after `config.idempotencyPendingMs` was cut off (its process died before
 * committing anything) and the key is free again.
 */
/**
 * A code's `password` (DESIGN §14) is kept only as a slow salted hash: a fast SHA-256 over a
 * body holding it would let anyone with the database guess it offline, so the request hash
 * leaves it out. A retry with the same key and another password replays the first answer.
 */
function withoutPasswords(key: string, value: unknown): unknown {
  return key === 'password' && typeof value === 'string' ? '[password]' : value
}

/**
 * POSTs that change nothing: renders of an unsaved design. The same body always renders the
 * same bytes, so a retry is simply answered again; nothing binary is stored as an answer.
 */
const CHANGES_NOTHING = /^\/qr-codes\/preview\.(?:png|svg)\/?$/i

export function idempotency(ctx: Ctx): RequestHandler {
  return async (req, res, next) => {
    const key = req.get('idempotency-key')
    if (req.method !== 'POST' || key === undefined || CHANGES_NOTHING.test(req.path)) return next()
    if (key.length === 0 || key.length > 255) {
      return next(invalidField('Idempotency-Key', 'Idempotency-Key must be 1–255 characters'))
    }
    const accountId = req.auth.accountId
    const requestHash = sha256Hex(
      `${req.method} ${req.originalUrl}\n${JSON.stringify(req.body ?? null, withoutPasswords)}`,
    )
    const now = ctx.clock.now()
    const stored = await repo.findStoredRequest(ctx.db, accountId, key)
    const age = stored ? now.getTime() - Date.parse(stored.createdAt) : 0
    const isPending = stored !== undefined && (stored.status === null || stored.responseBody === null)
    const isLive =
      stored !== undefined &&
      age < IDEMPOTENCY_WINDOW_MS &&
      !(isPending && age >= ctx.config.idempotencyPendingMs)
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
    let storedWithWork: number | undefined
    answers.set(req, async (trx, status, body) => {
      await repo.completeRequest(trx, accountId, key, status, JSON.stringify(body))
      storedWithWork = status
    })
    const send = res.json.bind(res)
    res.json = (body: unknown) => {
      // Stored with the work, in its transaction, which committed (or this would be an error).
      if (storedWithWork !== undefined && storedWithWork === res.statusCode) return send(body)
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
