import type { StartOptions } from '@qrctl/server'

export interface LogEntry {
  level: string
  fields: Record<string, unknown>
  msg: string | undefined
}

/** A logger that keeps what the server hands it, to read back in full. */
export function captureLogger() {
  const entries: LogEntry[] = []
  const at =
    (level: string) =>
    (fields: unknown, msg?: string): void => {
      entries.push({
        level,
        fields: typeof fields === 'object' && fields ? { ...fields } : { value: fields },
        msg,
      })
    }
  const logger = {
    level: 'trace',
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    fatal: at('fatal'),
    isLevelEnabled: () => true,
    child: () => logger,
  }
  // Errors serialise with their message, stack and own properties, as pino's err serialiser does.
  const text = () =>
    JSON.stringify(entries, (_key, value) =>
      value instanceof Error ? { ...value, message: value.message, stack: value.stack } : value,
    )
  return { logger: logger as unknown as StartOptions['logger'], entries, text }
}
