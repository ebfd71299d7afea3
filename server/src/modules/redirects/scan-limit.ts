import type { Ctx } from '../../context.js'

/**
 * The one hook where a code's scan limit is used up (DESIGN §14): called once per reaching,
 * by the request whose reservation took the `maxScans`-th scan, after its redirect was sent.
 * Webhooks (#18) append `qr_code.scan_limit_reached` here. Raising the limit and using it up
 * again calls it again.
 */
export async function scanLimitReached(ctx: Ctx, qrCodeId: string, maxScans: number): Promise<void> {
  ctx.logger.info({ qrCodeId, maxScans }, 'scan limit reached')
}
