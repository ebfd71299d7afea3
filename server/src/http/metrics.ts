import type { RequestHandler } from 'express'
import { Histogram } from 'prom-client'
import { registry } from '../lib/metrics.js'
import { metricsText } from '../lib/worker.js'

/** Request times by method, route pattern and status, for Express and the fast paths alike (see request.ts). */
export const httpDuration = new Histogram({
  name: 'qrctl_http_request_duration_seconds',
  help: 'HTTP request duration by method, route and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
  registers: [registry],
})

export const metricsHandler: RequestHandler = async (_req, res) => {
  res.setHeader('Content-Type', registry.contentType)
  res.send(await metricsText())
}
