import type { Ctx } from './context.js'
import { addDays } from './lib/clock.js'
import { purgeStoredRequestsBefore } from './modules/idempotency/idempotency.repository.js'
import { purgeDeletedQrCodes } from './modules/qr-codes/qr-codes.service.js'
import { purgeLockoutsBefore } from './modules/redirects/redirects.repository.js'
import { purgeWritersBefore } from './modules/scans/scans.repository.js'
import { purgeEndedSessions } from './modules/sessions/sessions.service.js'
import { purgeDeliveriesBefore } from './modules/webhooks/webhooks.repository.js'

/** Ended webhook deliveries stay in the delivery log this long (docs/webhooks.md). */
export const WEBHOOK_LOG_DAYS = 30

export const HOURLY_MS = 3_600_000

/** A scan buffer's row goes once it has written nothing this long: its process has ended. */
const SCAN_WRITER_IDLE_DAYS = 7

/**
 * One pass of housekeeping: codes deleted over 30 days ago, idempotency keys over a day old,
 * ended webhook deliveries (with their events) over WEBHOOK_LOG_DAYS old, dashboard sessions
 * and login links that can no longer be used, the positions of scan buffers that have
 * written nothing for a week (their processes ended), and password lockout counts whose
 * newest try is 15 minutes old.
 */
export async function runHousekeeping(ctx: Ctx): Promise<{
  purgedCodes: number
  purgedIdempotencyKeys: number
  purgedWebhookDeliveries: number
  purgedSessions: number
  purgedScanWriters: number
  purgedPasswordLockouts: number
}> {
  const purgedCodes = await purgeDeletedQrCodes(ctx)
  const purgedIdempotencyKeys = await purgeStoredRequestsBefore(
    ctx.db,
    addDays(ctx.clock.now(), -1).toISOString(),
  )
  const purgedWebhookDeliveries = await purgeDeliveriesBefore(
    ctx.db,
    addDays(ctx.clock.now(), -WEBHOOK_LOG_DAYS).toISOString(),
  )
  const purgedSessions = await purgeEndedSessions(ctx)
  const purgedScanWriters = await purgeWritersBefore(
    ctx.db,
    addDays(ctx.clock.now(), -SCAN_WRITER_IDLE_DAYS).toISOString(),
  )
  const purgedPasswordLockouts = await purgeLockoutsBefore(ctx.db, ctx.clock.now().toISOString())
  const purged = {
    purgedCodes,
    purgedIdempotencyKeys,
    purgedWebhookDeliveries,
    purgedSessions,
    purgedScanWriters,
    purgedPasswordLockouts,
  }
  if (Object.values(purged).some((n) => n > 0)) ctx.logger.info(purged, 'housekeeping')
  return purged
}

/** Runs housekeeping every hour; the returned function stops it. */
export function scheduleHousekeeping(ctx: Ctx, intervalMs = HOURLY_MS): () => void {
  const timer = setInterval(() => {
    runHousekeeping(ctx).catch((error: unknown) => ctx.logger.error({ err: error }, 'housekeeping failed'))
  }, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}
