import type { Ctx } from './context.js'
import { addDays } from './lib/clock.js'
import { purgeStoredRequestsBefore } from './modules/idempotency/idempotency.repository.js'
import { purgeDeletedQrCodes } from './modules/qr-codes/qr-codes.service.js'

export const HOURLY_MS = 3_600_000

/** One pass of housekeeping: codes deleted over 30 days ago, and idempotency keys over a day old. */
export async function runHousekeeping(
  ctx: Ctx,
): Promise<{ purgedCodes: number; purgedIdempotencyKeys: number }> {
  const purgedCodes = await purgeDeletedQrCodes(ctx)
  const purgedIdempotencyKeys = await purgeStoredRequestsBefore(
    ctx.db,
    addDays(ctx.clock.now(), -1).toISOString(),
  )
  if (purgedCodes + purgedIdempotencyKeys > 0)
    ctx.logger.info({ purgedCodes, purgedIdempotencyKeys }, 'housekeeping')
  return { purgedCodes, purgedIdempotencyKeys }
}

/** Runs housekeeping every hour; the returned function stops it. */
export function scheduleHousekeeping(ctx: Ctx, intervalMs = HOURLY_MS): () => void {
  const timer = setInterval(() => {
    runHousekeeping(ctx).catch((error: unknown) => ctx.logger.error({ err: error }, 'housekeeping failed'))
  }, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}
