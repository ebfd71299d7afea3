import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../config.js'
import { AppError } from '../../errors.js'
import { createExportSlots, EXPORT_RETRY_AFTER_SECONDS, exportLimit } from './export-slots.js'

const postgres = (env: Record<string, string> = {}) => ({
  dialect: 'postgres' as const,
  config: loadConfig({ DATABASE_URL: 'postgres://127.0.0.1/x', ...env }),
})

describe('export slots', () => {
  it('lets a third of this process’s PostgreSQL pool export at once, at least one', () => {
    expect(exportLimit(postgres())).toBe(3)
    expect(exportLimit(postgres({ DATABASE_POOL_SIZE: '30' }))).toBe(10)
    expect(exportLimit(postgres({ DATABASE_POOL_SIZE: '1' }))).toBe(1)
    // Four workers share 10 connections: 3 each, so one export each.
    expect(exportLimit(postgres({ WORKERS: '4' }))).toBe(1)
    expect(exportLimit({ dialect: 'sqlite', config: loadConfig({ DATABASE_URL: 'file::memory:' }) })).toBe(
      Number.POSITIVE_INFINITY,
    )
  })

  it('turns the one past the limit away with 503 and Retry-After, until one is given back', () => {
    const slots = createExportSlots(2)
    const first = slots.take()
    slots.take()
    let refused: unknown
    try {
      slots.take()
    } catch (error) {
      refused = error
    }
    expect(refused).toBeInstanceOf(AppError)
    expect(refused).toMatchObject({
      code: 'service_unavailable',
      details: { retryAfter: EXPORT_RETRY_AFTER_SECONDS },
    })
    first()
    // Given back twice counts once.
    first()
    slots.take()
    expect(() => slots.take()).toThrow(AppError)
  })
})
