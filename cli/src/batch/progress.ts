import cliProgress from 'cli-progress'
import type { Ui } from '../ui.js'
import type { ChunkDone, UploadHooks } from './upload.js'

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
  total: number,
  batches: number,
  invalidCount: number,
): UploadHooks & { stop(): void } {
  let created = 0
  let failed = invalidCount
  const bar = ui.canAnimate
    ? new cliProgress.SingleBar(
        {
          stream: ui.stderr,
          format:
            'Uploading {bar} {value}/{total} rows | {created} created{before}, {failed} failed {status}',
          barCompleteChar: '█',
          barIncompleteChar: '░',
          hideCursor: false,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined
  let existing = 0
  const beforeNote = () => (existing > 0 ? `, ${existing} uploaded before` : '')
  bar?.start(total, 0, { created, before: beforeNote(), failed, status: '' })
  return {
    onChunk({ index, lines, outcomes, source }: ChunkDone) {
      const count = (status: string) => outcomes.filter((o) => o.status === status).length
      const [ok, before, bad] = [count('created'), count('exists'), count('failed')]
      created += ok
      existing += before
      failed += bad
      if (bar) {
        bar.increment(lines.length, { created, before: beforeNote(), failed, status: '' })
        return
      }
      const span = `lines ${lines[0]}–${lines.at(-1)}`
      const previously = before > 0 ? `, ${before} uploaded before` : ''
      ui.info(
        `batch ${index + 1}/${batches}: ${span}: ${ok} created${previously}, ${bad} failed${NOTES[source]}`,
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
