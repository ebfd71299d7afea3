import { processPoolSize } from '../../config.js'
import type { Ctx } from '../../context.js'
import { serviceUnavailable } from '../../errors.js'

/** What a client turned away is told to wait, in seconds: most exports end within a few. */
export const EXPORT_RETRY_AFTER_SECONDS = 5

/** Exports running at once in this process. */
export interface ExportSlots {
  /** Takes a slot, or throws 503 `service_unavailable` when none is free; call what it returns once done. */
  take(): () => void
}

export function createExportSlots(limit: number): ExportSlots {
  let running = 0
  return {
    take() {
      if (running >= limit)
        throw serviceUnavailable(
          EXPORT_RETRY_AFTER_SECONDS,
          `Too many exports are running; retry in ${EXPORT_RETRY_AFTER_SECONDS} s`,
        )
      running++
      let released = false
      return () => {
        if (released) return
        released = true
        running--
      }
    },
  }
}

/**
 * On PostgreSQL an export holds a pooled connection for its whole download (its cursor), so a
 * few slow downloads could take the pool from every other request: at most a third of this
 * process's pool, at least one, export at once. SQLite holds no connection between pages.
 */
export function exportLimit(ctx: Pick<Ctx, 'dialect' | 'config'>): number {
  return ctx.dialect === 'postgres' ? Math.max(1, Math.floor(processPoolSize(ctx.config) / 3)) : Infinity
}
