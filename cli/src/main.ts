#!/usr/bin/env node
import { run } from './run.js'

// `qrctl list --all | head -3`: once the reader has gone, stop quietly instead of crashing
// with an EPIPE stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error
  process.exit(0)
})

process.exitCode = await run(process.argv)
