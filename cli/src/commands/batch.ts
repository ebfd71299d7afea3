import type { Command } from 'commander'
import type { BatchFlags } from '../batch/batch.js'
import { styleFile } from '../design-options.js'
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
      'write each row’s result as CSV: line, status, id, name, shortCode, shortUrl, error, externalId',
    )
    .option('--retry-failed <results>', 'send only the rows that failed in RESULTS.csv (an earlier --out)')
    .option('--style <file.json>', 'a style (JSON) for every row; style columns override its keys', styleFile)
  withExamples(command, [
    'qrctl batch codes.csv --style brand.json',
    'qrctl batch codes.csv --dry-run',
    'qrctl batch codes.csv --out results.csv',
    'cat codes.csv | qrctl batch - --json > results.json',
    'qrctl batch codes.csv --retry-failed results.csv --out results2.csv',
  ])
  command.addHelpText(
    'after',
    `
CSV columns (header row; snake_case also works, e.g. content_type):
  name, contentType, content             required
  type, targetUrl                        static (default) or dynamic, and its redirect
  externalId                             your key for the row (default: derived from the
                                         file name and the row's content)
  foregroundColor, backgroundColor, errorCorrectionLevel, margin   style
Re-running the same file resumes: finished batches are replayed, never created twice.
Rows uploaded before (same externalId) are reported as such, not created again, so after
fixing rows in place a re-run creates only the fixed ones.
Exit status is 1 when any row failed; the failed rows are listed on stderr with their line numbers.
`,
  )
  // csv-parse and cli-progress load only when a batch runs, keeping every other command's start fast.
  command.action(async (file: string, flags: BatchFlags) => {
    const { runBatch } = await import('../batch/batch.js')
    await runBatch(session, file, flags)
  })
}
