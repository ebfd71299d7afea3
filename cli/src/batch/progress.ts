import cliProgress from 'cli-progress'
import type { Ui } from '../ui.js'
import type { Chunk, ChunkDone, UploadHooks } from './upload.js'

const NOTES: Record<ChunkDone['source'], string> = {
  sent: '',
  replayed: ' (replayed by the server)',
  state: ' (done in an earlier run)',
}

/**
 * How an upload shows its progress on stderr: a bar on a terminal that can redraw, one line
 * per batch otherwise (a log, a CI job), waits for the rate-limit window included.
 */
export function progressHooks(
  ui: Ui,
  chunks: readonly Chunk[],
  invalidCount: number,
): UploadHooks & { stop(): void } {
  const total = chunks.reduce((n, c) => n + c.lines.length, 0)
  let created = 0
  let failed = invalidCount
  const bar = ui.canAnimate
    ? new cliProgress.SingleBar(
        {
          stream: ui.stderr,
          format: 'Uploading {bar} {value}/{total} rows | {created} created, {failed} failed {status}',
          barCompleteChar: '█',
          barIncompleteChar: '░',
          hideCursor: false,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined
  bar?.start(total, 0, { created, failed, status: '' })
  return {
    onChunk({ index, chunk, outcomes, source }: ChunkDone) {
      const ok = outcomes.filter((o) => o.ok).length
      created += ok
      failed += outcomes.length - ok
      if (bar) {
        bar.increment(chunk.lines.length, { created, failed, status: '' })
        return
      }
      const lines = `lines ${chunk.lines[0]}–${chunk.lines.at(-1)}`
      ui.info(
        `batch ${index + 1}/${chunks.length}: ${lines}: ${ok} created, ${outcomes.length - ok} failed${NOTES[source]}`,
      )
    },
    onWait(ms, reason) {
      const text = `waiting ${Math.ceil(ms / 1000)} s: ${reason}`
      if (bar) bar.update({ status: `| ${text}` })
      else ui.info(text)
    },
    stop: () => bar?.stop(),
  }
}
