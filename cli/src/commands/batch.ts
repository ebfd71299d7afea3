import { createHash } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import type { Qrctl } from '@qrctl/sdk'
import cliProgress from 'cli-progress'
import type { Command } from 'commander'
import { readCsv } from '../batch/csv.js'
import { lineList, type RowResult, resultCells, resultsCsv, resultsJson } from '../batch/report.js'
import { batchColumns, type CheckedRow, checkRows, headerMapper } from '../batch/rows.js'
import { BatchState } from '../batch/state.js'
import { type Chunk, type ChunkDone, makeChunks, type UploadHooks, upload } from '../batch/upload.js'
import { CliError, EXIT, notLoggedIn } from '../errors.js'
import { withExamples } from '../help.js'
import { loadSdk } from '../lazy.js'
import { tsvLine } from '../output.js'
import { readStdin } from '../prompt.js'
import type { Session } from '../session.js'

interface BatchFlags {
  dryRun?: boolean
  out?: string
}

async function readInput(session: Session, file: string): Promise<Buffer> {
  if (file === '-') return readStdin(session.ui)
  try {
    return await readFile(file)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new CliError(`No such file: ${file}`)
    throw new CliError(`Cannot read ${file}: ${(error as Error).message}`)
  }
}

/** Reads, maps and checks every row; nothing is sent before this has seen the whole file. */
async function prepare(session: Session, file: string) {
  const input = await readInput(session, file)
  const fileHash = createHash('sha256').update(input).digest('hex').slice(0, 16)
  const columns = await batchColumns()
  const { rows } = readCsv(input, headerMapper(columns.all, ['name', 'contentType', 'content']))
  session.ui.setSpinnerText(`Checking ${rows.length.toLocaleString('en-US')} rows…`)
  const checked = await checkRows(rows, columns)
  const names = new Map(rows.map((row) => [row.line, row.cells.name ?? '']))
  return { fileHash, checked, names }
}

/** Local problems, one line per field, `file:line: field: message` like a compiler's. */
function reportInvalid(session: Session, label: string, checked: readonly CheckedRow[]): void {
  const invalid = checked.filter((row) => !row.ok)
  if (invalid.length === 0) return
  const { ui } = session
  ui.info(ui.err.red(`${invalid.length} of ${checked.length} rows are invalid:`))
  for (const row of invalid)
    if (!row.ok)
      for (const issue of row.issues) ui.info(`${label}:${row.line}: ${issue.field}: ${issue.message}`)
}

function emit(session: Session, flags: BatchFlags, results: RowResult[]) {
  const { ui } = session
  results.sort((a, b) => a.line - b.line)
  if (session.json) ui.print(JSON.stringify(resultsJson(results), null, 2))
  else if (!ui.stdoutIsTty && results.length > 0)
    ui.print(results.map((r) => tsvLine(resultCells(r))).join('\n'))
  return flags.out ? writeFile(flags.out, resultsCsv(results)) : Promise.resolve()
}

/** A progress bar on a terminal, one line per batch otherwise. */
function progressHooks(session: Session, chunks: readonly Chunk[], invalidCount: number) {
  const { ui } = session
  const total = chunks.reduce((n, c) => n + c.lines.length, 0)
  let created = 0
  let failed = invalidCount
  const bar = ui.canAnimate
    ? new cliProgress.SingleBar(
        {
          stream: ui.stderr,
          format: `Uploading {bar} {value}/{total} rows | {created} created, {failed} failed {status}`,
          barCompleteChar: '█',
          barIncompleteChar: '░',
          hideCursor: false,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined
  bar?.start(total, 0, { created, failed, status: '' })
  const hooks: UploadHooks = {
    onChunk({ index, chunk, outcomes, fromState }: ChunkDone) {
      const ok = outcomes.filter((o) => o.ok).length
      created += ok
      failed += outcomes.length - ok
      const lines = `lines ${chunk.lines[0]}–${chunk.lines.at(-1)}`
      if (bar) bar.increment(chunk.lines.length, { created, failed, status: '' })
      else
        ui.info(
          `batch ${index + 1}/${chunks.length}: ${lines}: ${ok} created, ${outcomes.length - ok} failed` +
            `${fromState ? ' (done in an earlier run)' : ''}`,
        )
    },
    onWait(ms, reason) {
      const text = `waiting ${Math.ceil(ms / 1000)} s: ${reason}`
      if (bar) bar.update({ status: `| ${text}` })
      else ui.info(text)
    },
  }
  return { hooks, stop: () => bar?.stop() }
}

/**
 * One cheap request before the upload: a refused key fails at once (exit 4) rather than after
 * reading the file, and the rate-limit headers tell the pacing how much of the window is left.
 * A write-only key may not list; its 403 still carries those headers.
 */
async function probe(client: Qrctl): Promise<void> {
  const { QrctlPermissionError } = await loadSdk()
  try {
    await client.qrCodes.list({ limit: 1 })
  } catch (error) {
    if (!(error instanceof QrctlPermissionError && error.code === 'insufficient_scope')) throw error
  }
}

async function runUpload(
  session: Session,
  label: string,
  fileHash: string,
  chunks: Chunk[],
  invalid: number,
) {
  const { ui } = session
  const client = await session.call(async (c) => {
    await probe(c)
    return c
  }, 'Connecting…')
  const settings = await session.settings()
  if (!settings.apiKey) throw notLoggedIn(settings.profile)
  const state = await BatchState.open(session.env, fileHash, settings.apiKey.value)
  if (state.size > 0)
    ui.info(`Resuming ${label}: ${state.size} of ${chunks.length} batches were finished earlier.`)
  const outcomes: ChunkDone['outcomes'] = []
  const { hooks, stop } = progressHooks(session, chunks, invalid)
  const abort = new AbortController()
  const onSigint = () => abort.abort(new Error('interrupted'))
  process.once('SIGINT', onSigint)
  try {
    await upload(
      client,
      chunks,
      state,
      {
        ...hooks,
        onChunk: (done) => {
          outcomes.push(...done.outcomes)
          hooks.onChunk(done)
        },
      },
      abort.signal,
    )
  } catch (error) {
    stop()
    const sent = new Set(outcomes.map((o) => o.line)).size
    const hint = 'Run the same command again to resume: finished batches are not created twice.'
    if (abort.signal.aborted)
      throw new CliError(
        `Interrupted after ${sent} of ${chunks.reduce((n, c) => n + c.lines.length, 0)} rows`,
        {
          exitCode: EXIT.usage,
          hint,
        },
      )
    ui.info(ui.err.yellow(`Stopped after ${sent} rows. ${hint}`))
    throw error
  } finally {
    process.off('SIGINT', onSigint)
    stop()
  }
  await state.remove()
  return outcomes
}

export function registerBatchCommand(program: Command, session: Session): void {
  const command = program
    .command('batch')
    .description('Create QR codes from a CSV file, 100 per request, resumable')
    .argument('<file>', 'CSV with a header row of field names ("-" reads stdin)')
    .option('--dry-run', 'check every row and stop; nothing is sent')
    .option(
      '-o, --out <file>',
      'write each row’s result as CSV: line, status, id, name, shortCode, shortUrl, error',
    )
  withExamples(command, [
    'qrctl batch codes.csv --dry-run',
    'qrctl batch codes.csv --out results.csv',
    'cat codes.csv | qrctl batch - --json > results.json',
  ])
  command.addHelpText(
    'after',
    `
CSV columns (header row; snake_case also works, e.g. content_type):
  name, contentType, content             required
  type, targetUrl                        static (default) or dynamic, and its redirect
  foregroundColor, backgroundColor, errorCorrectionLevel, margin   style
Re-running the same file resumes: finished batches are replayed, never created twice.
Exit status is 1 when any row failed; the failed rows are listed on stderr with their line numbers.
`,
  )
  command.action(async (file: string, flags: BatchFlags) => {
    const { ui } = session
    const label = file === '-' ? 'stdin' : file
    const stopSpinner = ui.spin(`Reading ${label}…`)
    const prepared = await prepare(session, file).finally(stopSpinner)
    const { fileHash, checked, names } = prepared
    reportInvalid(session, label, checked)
    const invalid = checked.filter((row) => !row.ok)
    const results: RowResult[] = invalid.map((row) => ({
      line: row.line,
      name: names.get(row.line) ?? '',
      status: 'failed',
      errors: row.ok ? [] : row.issues.map((i) => `${i.field}: ${i.message}`),
    }))
    session.exitCode = invalid.length > 0 ? EXIT.error : EXIT.ok
    const valid = checked.flatMap((row) => (row.ok ? [row] : []))
    if (checked.length === 0) {
      ui.info(`${label} has a header but no rows: nothing to do.`)
      return
    }
    if (flags.dryRun) {
      for (const row of valid)
        results.push({ line: row.line, name: names.get(row.line) ?? '', status: 'valid' })
      await emit(session, flags, results)
      ui.info(`Dry run: ${valid.length} of ${checked.length} rows are valid; nothing was sent.`)
      return
    }
    const chunks = await makeChunks(valid, fileHash)
    const outcomes =
      chunks.length > 0 ? await runUpload(session, label, fileHash, chunks, invalid.length) : []
    const rejected = outcomes.filter((o) => !o.ok)
    if (rejected.length > 0) {
      session.exitCode = EXIT.error
      ui.info(ui.err.red(`${rejected.length} rows were rejected by the server:`))
      for (const o of rejected) if (!o.ok) for (const e of o.errors) ui.info(`${label}:${o.line}: ${e}`)
    }
    for (const o of outcomes) {
      const name = names.get(o.line) ?? ''
      results.push(
        o.ok
          ? { line: o.line, name, status: 'created', code: o.code }
          : { line: o.line, name, status: 'failed', errors: o.errors },
      )
    }
    await emit(session, flags, results)
    const failedLines = results.filter((r) => r.status === 'failed').map((r) => r.line)
    const created = results.length - failedLines.length
    const summary = `${created} created, ${failedLines.length} failed${failedLines.length ? ` (lines ${lineList(failedLines)})` : ''}.`
    if (failedLines.length) ui.info(ui.err.red(summary))
    else ui.success(summary)
    if (flags.out) ui.info(`Results written to ${flags.out}`)
  })
}
