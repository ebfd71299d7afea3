import { randomUUID } from 'node:crypto'

const SANE = /^[A-Za-z0-9._-]{1,64}$/

/** The caller's X-Request-Id when it is sane (so logs can be joined across services), else a new one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE.test(header) ? header : randomUUID()
}
