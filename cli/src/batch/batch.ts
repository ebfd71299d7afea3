import { createHash } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { CliError, EXIT } from '../errors.js'
import { tsvLine } from '../output.js'
import { readStdin } from '../prompt.js'
import type { Session } from '../session.js'
import { readCsv } from './csv.js'
import { lineList, type RowResult, resultCells, resultsCsv, resultsJson } from './report.js'
import { batchColumns, type CheckedRow, checkRows, headerMapper } from './rows.js'
import { uploadChunks } from './run.js'
import { makeChunks, type RowOutcome } from './upload.js'

export interface BatchFlags {
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

/** Local problems, one line per field, `file:line: field: message` as compilers print them. */
function reportInvalid(session: Session, label: string, checked: readonly CheckedRow[]): void {
  const invalid = checked.flatMap((row) => (row.ok ? [] : [row]))
  if (invalid.length === 0) return
  const { ui } = session
  ui.info(ui.err.red(`${invalid.length} of ${checked.length} rows are invalid:`))
  for (const row of invalid)
    for (const issue of row.issues) ui.info(`${label}:${row.line}: ${issue.field}: ${issue.message}`)
}

function reportRejected(session: Session, label: string, outcomes: readonly RowOutcome[]): void {
  const rejected = outcomes.flatMap((o) => (o.ok ? [] : [o]))
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
  const failed = results.filter((r) => r.status === 'failed').map((r) => r.line)
  const summary = `${results.length - failed.length} created, ${failed.length} failed`
  if (failed.length > 0) ui.info(ui.err.red(`${summary} (lines ${lineList(failed)}).`))
  else ui.success(`${summary}.`)
  if (flags.out) ui.info(`Results written to ${flags.out}`)
}

/** `qrctl batch FILE`: read and check every row, then upload the valid ones (or stop, with --dry-run). */
export async function runBatch(session: Session, file: string, flags: BatchFlags): Promise<void> {
  const { ui } = session
  const label = file === '-' ? 'stdin' : file
  const stopSpinner = ui.spin(`Reading ${label}…`)
  const { fileHash, checked, names } = await prepare(session, file).finally(stopSpinner)
  if (checked.length === 0) {
    ui.info(`${label} has a header but no rows: nothing to do.`)
    return
  }
  reportInvalid(session, label, checked)
  const valid = checked.flatMap((row) => (row.ok ? [row] : []))
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
      results.push({ line: row.line, name: names.get(row.line) ?? '', status: 'valid' })
    await emit(session, flags, results)
    ui.info(`Dry run: ${valid.length} of ${checked.length} rows are valid; nothing was sent.`)
    return
  }
  const chunks = await makeChunks(valid, fileHash)
  const outcomes =
    chunks.length > 0 ? await uploadChunks(session, label, fileHash, chunks, results.length) : []
  reportRejected(session, label, outcomes)
  for (const o of outcomes) {
    const name = names.get(o.line) ?? ''
    results.push(
      o.ok
        ? { line: o.line, name, status: 'created', code: o.code }
        : { line: o.line, name, status: 'failed', errors: o.errors },
    )
  }
  if (outcomes.some((o) => !o.ok)) session.exitCode = EXIT.error
  await emit(session, flags, results)
  summarize(session, flags, results)
}
