import type { Command } from 'commander'
import type { BatchFlags } from '../batch/batch.js'
import { withExamples } from '../help.js'
import type { Session } from '../session.js'

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
  // csv-parse and cli-progress load only when a batch runs, keeping every other command's start fast.
  command.action(async (file: string, flags: BatchFlags) => {
    const { runBatch } = await import('../batch/batch.js')
    await runBatch(session, file, flags)
  })
}
