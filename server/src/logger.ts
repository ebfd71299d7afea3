import { pino } from 'pino'
import type { Config } from './config.js'
import { workerId } from './lib/worker.js'

export type Logger = pino.Logger

/**
 * JSON logs. Keys, secrets and client addresses never reach them: request logs carry the
 * method, route, status, duration, request id and account id only, and the redaction list
 * is a second line of defence.
 */
export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({
    level: config.logLevel,
    // Under WORKERS=N every line says which worker wrote it (its number and pid).
    base: workerId ? { service: 'qrctl', worker: workerId, pid: process.pid } : { service: 'qrctl' },
    redact: {
      paths: [
        'authorization',
        '*.authorization',
        'headers.authorization',
        'apiKey',
        'secret',
        '*.secret',
        'ip',
        '*.ip',
      ],
      censor: '[redacted]',
    },
  })
}
