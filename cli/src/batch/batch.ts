import { createHash } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { CliError, EXIT } from '../errors.js'
import { tsvLine } from '../output.js'
import { readStdin } from '../prompt.js'
import type { Session } from '../session.js'
import { readCsv } from './csv.js'
import { lineList, type RowResult, resultCells, resultsCsv, resultsJson } from './report.js'
import { batchColumns, type CheckedRow, checkRows, deriveExternalIds, headerMapper } from './rows.js'
import { interrupted, uploadRows } from './run.js'
import type { RowOutcome } from './upload.js'

export interface BatchFlags {
  dryRun?: boolean
  out?: string
  retryFailed?: string
  /** `--style FILE.json`: applied to every row; a row's own style columns override its keys. */
  style?: Record<string, unknown>
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

/** The lines `--retry-failed RESULTS.csv` names as failed (RESULTS.csv is an earlier run's `--out`). */
async function failedLines(session: Session, file: string): Promise<Set<number>> {
  const { rows } = readCsv(await readInput(session, file), (header) => {
    const columns = header.map((cell) => cell.trim().toLowerCase())
    if (!columns.includes('line') || !columns.includes('status'))
      throw new CliError(`${file} is not a results file: it needs the columns line and status`, {
        hint: 'Pass the file an earlier `qrctl batch FILE --out RESULTS.csv` wrote.',
      })
    return columns
  })
  return new Set(rows.filter((r) => r.cells.status === 'failed').map((r) => Number(r.cells.line)))
}

/** Reads, maps and checks every row; nothing is sent before this has seen the whole file. */
async function prepare(session: Session, file: string, style?: Record<string, unknown>) {
  const input = await readInput(session, file)
  const fileHash = createHash('sha256').update(input).digest('hex').slice(0, 16)
  const columns = await batchColumns()
  const spelling = new Map<string, string>()
  const { rows } = readCsv(input, headerMapper(columns.all, ['name', 'contentType', 'content'], spelling))
  session.ui.setSpinnerText(`Checking ${rows.length.toLocaleString('en-US')} rows…`)
  const checked = await checkRows(rows, columns, spelling, style)
  deriveExternalIds(
    file,
    checked.flatMap((row) => (row.ok ? [row] : [])),
  )
  const names = new Map(rows.map((row) => [row.line, row.cells.name ?? '']))
  return { fileHash, checked, names }
}

/** Local problems, one line per field, `file:line: column: message` as compilers print them. */
function reportInvalid(session: Session, label: string, checked: readonly CheckedRow[]): void {
  const invalid = checked.flatMap((row) => (row.ok ? [] : [row]))
  if (invalid.length === 0) return
  const { ui } = session
  ui.info(ui.err.red(`${invalid.length} of ${checked.length} rows are invalid:`))
  for (const row of invalid)
    for (const issue of row.issues) ui.info(`${label}:${row.line}: ${issue.field}: ${issue.message}`)
}

function reportRejected(session: Session, label: string, outcomes: readonly RowOutcome[]): void {
  const rejected = outcomes.flatMap((o) => (o.status === 'failed' ? [o] : []))
  if (rejected.length === 0) return
  const { ui } = session
  ui.info(ui.err.red(`${rejected.length} rows were rejected by the server:`))
  for (const o of rejected) for (const error of o.errors) ui.info(`${label}:${o.line}: ${error}`)
}

/** The results as data: --json, or tab-separated when piped, and the --out file. */
async function emit(session: Session, flags: BatchFlags, results: RowResult[]): Promise<void> {
  const { ui } = session
  results.sort((a, b) => a.line - b.line)
  if (session.json) ui.print(JSON.stringify(resultsJson(results), null, 2))
  else if (!ui.stdoutIsTty && results.length > 0)
    ui.print(results.map((r) => tsvLine(resultCells(r))).join('\n'))
  if (flags.out) await writeFile(flags.out, resultsCsv(results))
}

function summarize(session: Session, flags: BatchFlags, results: readonly RowResult[]): void {
  const { ui } = session
  const count = (status: RowResult['status']) => results.filter((r) => r.status === status).length
  const failed = results.filter((r) => r.status === 'failed').map((r) => r.line)
  const existing = count('exists')
  const before = existing > 0 ? `, ${existing} uploaded before (not created again)` : ''
  const summary = `${count('created')} created${before}, ${failed.length} failed`
  if (failed.length > 0) ui.info(ui.err.red(`${summary} (lines ${lineList(failed)}).`))
  else ui.success(`${summary}.`)
  if (flags.out) ui.info(`Results written to ${flags.out}`)
}

function toResult(o: RowOutcome, name: string, externalId: string | undefined): RowResult {
  if (o.status === 'created') return { line: o.line, name, status: 'created', code: o.code, externalId }
  if (o.status === 'exists') return { line: o.line, name, status: 'exists', id: o.id, externalId }
  return { line: o.line, name, status: 'failed', errors: o.errors, externalId }
}

/** `qrctl batch FILE`: read and check every row, then upload the valid ones (or stop, with --dry-run). */
export async function runBatch(session: Session, file: string, flags: BatchFlags): Promise<void> {
  // Ctrl-C at any moment: exit 2 with the resume hint (docs/cli.md), never a stack or a silent kill.
  const abort = new AbortController()
  const onSigint = () => abort.abort(new Error('interrupted'))
  process.once('SIGINT', onSigint)
  try {
    await batch(session, file, flags, abort.signal)
  } catch (error) {
    if (abort.signal.aborted && !(error instanceof CliError && error.exitCode === EXIT.usage))
      throw interrupted('Interrupted before any row was sent')
    throw error
  } finally {
    process.off('SIGINT', onSigint)
  }
}

async function batch(session: Session, file: string, flags: BatchFlags, signal: AbortSignal): Promise<void> {
  const { ui } = session
  const label = file === '-' ? 'stdin' : file
  const retry = flags.retryFailed ? await failedLines(session, flags.retryFailed) : undefined
  const stopSpinner = ui.spin(`Reading ${label}…`)
  const prepared = await prepare(session, file, flags.style).finally(stopSpinner)
  signal.throwIfAborted()
  const { fileHash, names } = prepared
  const checked = retry ? prepared.checked.filter((row) => retry.has(row.line)) : prepared.checked
  if (retry)
    ui.info(
      `Retrying the ${checked.length} rows that failed in ${flags.retryFailed}; the other ${prepared.checked.length - checked.length} are left alone.`,
    )
  if (checked.length === 0) {
    ui.info(
      retry ? 'No failed rows to retry: nothing to do.' : `${label} has a header but no rows: nothing to do.`,
    )
    return
  }
  reportInvalid(session, label, checked)
  const valid = checked.flatMap((row) => (row.ok ? [row] : []))
  const externalIds = new Map(valid.map((row) => [row.line, row.input.externalId]))
  const results: RowResult[] = checked.flatMap((row) =>
    row.ok
      ? []
      : [
          {
            line: row.line,
            name: names.get(row.line) ?? '',
            status: 'failed' as const,
            errors: row.issues.map((i) => `${i.field}: ${i.message}`),
          },
        ],
  )
  session.exitCode = valid.length < checked.length ? EXIT.error : EXIT.ok
  if (flags.dryRun) {
    for (const row of valid)
      results.push({
        line: row.line,
        name: names.get(row.line) ?? '',
        status: 'valid',
        externalId: row.input.externalId,
      })
    await emit(session, flags, results)
    ui.info(`Dry run: ${valid.length} of ${checked.length} rows are valid; nothing was sent.`)
    return
  }
  const outcomes =
    valid.length > 0 ? await uploadRows(session, label, fileHash, valid, results.length, signal) : []
  reportRejected(session, label, outcomes)
  for (const o of outcomes) results.push(toResult(o, names.get(o.line) ?? '', externalIds.get(o.line)))
  if (outcomes.some((o) => o.status === 'failed')) session.exitCode = EXIT.error
  await emit(session, flags, results)
  summarize(session, flags, results)
}
