import type { Qrctl } from '@qrctl/sdk'
import { CliError, EXIT, notLoggedIn } from '../errors.js'
import { loadSdk } from '../lazy.js'
import type { Session } from '../session.js'
import { progressHooks } from './progress.js'
import { BatchState } from './state.js'
import { batchCount, type RowOutcome, type UploadRow, upload } from './upload.js'

/**
 * One cheap request before the upload: a refused key fails at once (exit 4) rather than after
 * reading the file, and the rate-limit headers tell the pacing how much of the window is left.
 * A write-only key may not list; its 403 still carries those headers.
 */
async function probe(client: Qrctl, signal: AbortSignal): Promise<void> {
  const { QrctlPermissionError } = await loadSdk()
  try {
    await client.qrCodes.list({ limit: 1 }, { signal })
  } catch (error) {
    if (!(error instanceof QrctlPermissionError && error.code === 'insufficient_scope')) throw error
  }
}

export const RESUME_HINT = 'Run the same command again to resume: finished batches are not created twice.'

/** Ctrl-C during a batch: exit 2 with the resume hint (docs/cli.md, "Interrupted uploads"). */
export function interrupted(message: string): CliError {
  return new CliError(message, { exitCode: EXIT.usage, hint: RESUME_HINT })
}

/**
 * Uploads the rows with progress on stderr, resuming from the state file of an earlier run
 * and recording each answer in it. `signal` (Ctrl-C) aborts the request in flight; the state
 * file is removed only once every batch has its answer.
 */
export async function uploadRows(
  session: Session,
  label: string,
  fileHash: string,
  rows: readonly UploadRow[],
  invalidCount: number,
  signal: AbortSignal,
): Promise<RowOutcome[]> {
  const batches = batchCount(rows.length)
  const { ui } = session
  const client = await session.call(async (c) => {
    await probe(c, signal)
    return c
  }, 'Connecting…')
  const settings = await session.settings()
  if (!settings.apiKey) throw notLoggedIn(settings.profile)
  const state = await BatchState.open(session.env, fileHash, settings.apiKey.value)
  if (state.size > 0) ui.info(`Resuming ${label}: ${state.size} of ${batches} batches were finished earlier.`)

  const outcomes: RowOutcome[] = []
  const replayed = { batches: 0, rows: 0 }
  const progress = progressHooks(ui, rows.length, batches, invalidCount)
  try {
    await upload(
      client,
      rows,
      fileHash,
      state,
      {
        onChunk: (done) => {
          outcomes.push(...done.outcomes)
          if (done.source === 'replayed') {
            replayed.batches++
            replayed.rows += done.lines.length
          }
          progress.onChunk(done)
        },
        onWait: progress.onWait,
      },
      signal,
    )
  } catch (error) {
    progress.stop()
    if (signal.aborted) throw interrupted(`Interrupted after ${outcomes.length} of ${rows.length} rows`)
    ui.info(ui.err.yellow(`Stopped after ${outcomes.length} of ${rows.length} rows. ${RESUME_HINT}`))
    throw error
  } finally {
    progress.stop()
  }
  if (replayed.batches > 0)
    ui.info(
      `${replayed.batches} of ${batches} batches (${replayed.rows} rows) were replayed by the server: ` +
        'it had done them before, so nothing was created twice.',
    )
  await state.remove()
  return outcomes
}
