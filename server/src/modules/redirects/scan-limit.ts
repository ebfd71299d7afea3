import type { Ctx } from '../../context.js'
import { findQrCodeById } from '../qr-codes/qr-codes.repository.js'
import { toQrCode } from '../qr-codes/qr-codes.service.js'
import { appendEvents } from '../webhooks/webhook-outbox.js'

/**
 * The one hook where a code's scan limit is used up (DESIGN §14): called once per reaching,
 * by the request whose reservation took the `maxScans`-th scan, after its redirect was sent.
 * It appends the webhook event `qr_code.scan_limit_reached` (DESIGN §15), with the code as the
 * API shows it. Raising the limit and using it up again calls it again.
 *
 * The event is written in a transaction of its own, just after the reservation's: a process
 * that dies between the two loses this one event (never a scan, never the limit).
 */
export async function scanLimitReached(ctx: Ctx, qrCodeId: string, maxScans: number): Promise<void> {
  ctx.logger.info({ qrCodeId, maxScans }, 'scan limit reached')
  await ctx.db.transaction().execute(async (trx) => {
    const code = await findQrCodeById(trx, qrCodeId)
    if (!code) return
    await appendEvents(ctx, trx, [
      { accountId: code.accountId, type: 'qr_code.scan_limit_reached', data: toQrCode(ctx, code), qrCodeId },
    ])
  })
}
