import type { Transaction } from 'kysely'
import type { Database } from './schema.js'

/**
 * The project's transactional pattern (docs/decisions.md, issue #12): whatever must become
 * true exactly when a request's work is committed, and never without it, is written by a
 * `BeforeCommit` hook inside the service's own transaction, after the work and just before
 * the commit. The idempotency layer stores the request's answer this way; the webhook outbox
 * will append its event row the same way. A service that changes data takes the hook as its
 * last parameter and calls it with what it is about to return; a retried transaction calls it
 * again, since the attempt before rolled back.
 */
export type BeforeCommit<T> = (trx: Transaction<Database>, result: T) => Promise<void>

/** The hook for callers with nothing to add (CLI, jobs, tests). */
export const noBeforeCommit: BeforeCommit<unknown> = async () => {}
