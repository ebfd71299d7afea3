import { Counter, Gauge } from 'prom-client'
import { registry } from '../../lib/metrics.js'

/** The scan buffers of this process, for the pending gauge. */
export const liveBuffers = new Set<{ readonly pending: number }>()

/** Scan recording on /metrics: what waits, what was written, and what was lost. */
export const scanMetrics = {
  pending: new Gauge({
    name: 'qrctl_scans_pending',
    help: 'Scans buffered in memory, not yet written',
    registers: [registry],
    // Read when scraped, not counted per scan: the redirect path stays free of it.
    collect() {
      let pending = 0
      for (const buffer of liveBuffers) pending += buffer.pending
      this.set(pending)
    },
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
