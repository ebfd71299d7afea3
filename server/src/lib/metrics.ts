import { collectDefaultMetrics, Registry } from 'prom-client'

/**
 * The one Prometheus registry of the process. It sits below both `http/` and `modules/`, so a
 * module can count its own events (scans, buffers) without importing the transport layer.
 */
export const registry = new Registry()
collectDefaultMetrics({ register: registry })
