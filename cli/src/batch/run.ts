import type { Qrctl } from '@qrctl/sdk'
import { CliError, EXIT, notLoggedIn } from '../errors.js'
import { loadSdk } from '../lazy.js'
import type { Session } from '../session.js'
import { progressHooks } from './progress.js'
import { BatchState } from './state.js'
import { type Chunk, type RowOutcome, upload } from './upload.js'

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

const RESUME_HINT = 'Run the same command again to resume: finished batches are not created twice.'

/**
 * Uploads the chunks with progress on stderr, resuming from the state file of an earlier run
 * and recording each answer in it. Ctrl-C aborts the request in flight and exits 2; the state
 * file is removed only once every chunk has its answer.
 */
export async function uploadChunks(
  session: Session,
  label: string,
  fileHash: string,
  chunks: Chunk[],
  invalidCount: number,
): Promise<RowOutcome[]> {
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

  const outcomes: RowOutcome[] = []
  const replayed = { batches: 0, rows: 0 }
  const progress = progressHooks(ui, chunks, invalidCount)
  const abort = new AbortController()
  const onSigint = () => abort.abort(new Error('interrupted'))
  process.once('SIGINT', onSigint)
  try {
    await upload(
      client,
      chunks,
      state,
      {
        onChunk: (done) => {
          outcomes.push(...done.outcomes)
          if (done.source === 'replayed') {
            replayed.batches++
            replayed.rows += done.chunk.lines.length
          }
          progress.onChunk(done)
        },
        onWait: progress.onWait,
      },
      abort.signal,
    )
  } catch (error) {
    progress.stop()
    const rows = chunks.reduce((n, c) => n + c.lines.length, 0)
    if (abort.signal.aborted)
      throw new CliError(`Interrupted after ${outcomes.length} of ${rows} rows`, {
        exitCode: EXIT.usage,
        hint: RESUME_HINT,
      })
    ui.info(ui.err.yellow(`Stopped after ${outcomes.length} of ${rows} rows. ${RESUME_HINT}`))
    throw error
  } finally {
    process.off('SIGINT', onSigint)
    progress.stop()
  }
  if (replayed.batches > 0)
    ui.info(
      `${replayed.batches} of ${chunks.length} batches (${replayed.rows} rows) were replayed by the server: ` +
        'it had done them before, so nothing was created twice.',
    )
  await state.remove()
  return outcomes
}
