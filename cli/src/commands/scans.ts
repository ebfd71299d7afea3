import { createWriteStream, existsSync } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import { Transform, type Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Command } from 'commander'
import { usageError } from '../errors.js'
import { withExamples } from '../help.js'
import type { Session } from '../session.js'
import type { Ui } from '../ui.js'

interface ExportFlags {
  from: string
  to: string
  tz?: string
  codes?: string
  output?: string
  force?: boolean
}

const LF = 0x0a

const scansText = (n: number) => `${n.toLocaleString('en-US')} scan${n === 1 ? '' : 's'}`

/** Rows and bytes so far, on stderr: redrawn on a terminal, one line a second otherwise. */
function exportProgress(ui: Ui) {
  let rows = -1 // the header line is not a scan
  let bytes = 0
  let lastLine = 0
  const text = () => `Exporting… ${scansText(Math.max(0, rows))}, ${(bytes / 1e6).toFixed(1)} MB`
  const stop = ui.spin(text())
  return {
    add(chunk: Uint8Array) {
      bytes += chunk.byteLength
      for (const byte of chunk) if (byte === LF) rows++
      if (ui.canAnimate) ui.setSpinnerText(text())
      else if (Date.now() - lastLine >= 1000) {
        lastLine = Date.now()
        ui.info(text())
      }
    },
    done() {
      stop()
      return { rows: Math.max(0, rows), bytes }
    },
  }
}

export function registerScansCommands(program: Command, session: Session): void {
  const scans = program.command('scans').description('Individual scans: export them as CSV')
  withExamples(scans, ['qrctl scans export --from 2026-03-01 --to 2026-03-31 -o march.csv'])
  const command = scans
    .command('export')
    .description(
      'Every scan in a window as CSV (one row per scan, in time order), streamed to a file or stdout',
    )
    .requiredOption('--from <date>', 'first day, YYYY-MM-DD')
    .requiredOption('--to <date>', 'last day, YYYY-MM-DD (at most 366 days)')
    .option('--tz <zone>', 'IANA time zone of the days and of the scannedAt column (default UTC)')
    .option('--codes <ids>', 'only these codes (comma-separated ids)')
    .option('-o, --output <file>', 'the CSV file to write (default: stdout)')
    .option('--force', 'overwrite the file if it exists')
  withExamples(command, [
    'qrctl scans export --from 2026-03-01 --to 2026-03-31 -o march.csv',
    'qrctl scans export --from 2026-03-01 --to 2026-03-31 --tz Europe/Berlin --codes 6f1c…,9a2b… -o spring.csv',
    'qrctl scans export --from 2026-03-01 --to 2026-03-01 | wc -l',
  ])
  command.action(async (flags: ExportFlags) => {
    const { ui } = session
    const target = flags.output && flags.output !== '-' ? flags.output : undefined
    if (target && existsSync(target) && !flags.force)
      throw usageError(`${target} exists`, 'Pass --force to overwrite it, or choose another name.')
    const stream = await session.call(
      (client) =>
        client.analytics.export({
          from: flags.from,
          to: flags.to,
          ...(flags.tz ? { timezone: flags.tz } : {}),
          ...(flags.codes ? { qrCodeIds: flags.codes } : {}),
        }),
      'Starting the export…',
    )
    const progress = exportProgress(ui)
    // Written to FILE.part, renamed when complete: a cut-off download never looks finished.
    const partial = target ? `${target}.part` : undefined
    const sink = partial ? createWriteStream(partial) : ui.stdout
    const counter = new TransformCounter(progress.add)
    try {
      await pipeline(stream, counter, sink as Writable)
      if (partial && target) await rename(partial, target)
    } catch (error) {
      progress.done()
      if (partial) await rm(partial, { force: true })
      throw error
    }
    const { rows, bytes } = progress.done()
    const where = target ?? 'stdout'
    ui.success(`Exported ${scansText(rows)} to ${where} (${bytes.toLocaleString('en-US')} bytes)`)
  })
}

/** Passes chunks through, telling `onChunk` about each. */
class TransformCounter extends Transform {
  constructor(private readonly onChunk: (chunk: Uint8Array) => void) {
    super()
  }
  override _transform(
    chunk: Buffer,
    _encoding: BufferEncoding,
    done: (error?: Error | null, data?: Buffer) => void,
  ) {
    this.onChunk(chunk)
    done(null, chunk)
  }
}
