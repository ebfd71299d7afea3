import { Counter, Gauge } from 'prom-client'
import { registry } from '../../http/metrics.js'

/** Scan recording on /metrics: what waits, what was written, and what was lost. */
export const scanMetrics = {
  pending: new Gauge({
    name: 'qrctl_scans_pending',
    help: 'Scans buffered in memory, not yet written',
    registers: [registry],
  }),
  written: new Counter({
    name: 'qrctl_scans_written_total',
    help: 'Scans written to the database',
    registers: [registry],
  }),
  writeFailures: new Counter({
    name: 'qrctl_scan_write_failures_total',
    help: 'Batch writes that failed and were retried',
    registers: [registry],
  }),
  dropped: new Counter({
    name: 'qrctl_scans_dropped_total',
    help: 'Scans dropped: the buffer overflowed while the database was unreachable, or shutdown could not write them',
    registers: [registry],
  }),
}
