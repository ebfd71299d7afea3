import { createRequire } from 'node:module'
import { Command } from 'commander'
import { registerAuthCommands } from './commands/auth.js'
import { registerBatchCommand } from './commands/batch.js'
import { registerConfigCommands } from './commands/config.js'
import { registerImageCommands } from './commands/image.js'
import { registerKeyCommands } from './commands/keys.js'
import { registerOrganiseCommands } from './commands/organise.js'
import { registerQrCodeCommands } from './commands/qr-codes.js'
import { registerScansCommands } from './commands/scans.js'
import { registerShowcaseCommands } from './commands/showcases.js'
import { registerWebhookCommands } from './commands/webhooks.js'
import { withExamples } from './help.js'
import type { GlobalOptions, Session } from './session.js'

const pkg = createRequire(import.meta.url)('../package.json') as { version: string }
export const CLI_VERSION = pkg.version

/** The whole command tree. Actions receive the session; errors propagate to `run`. */
export function createProgram(session: Session): Command {
  const program = new Command('qrctl')
  program
    .description('Manage qrctl QR codes, showcases and API keys from the command line.')
    .version(CLI_VERSION, '-V, --version', 'print the version')
    .option('--profile <name>', 'config profile to use (default: $QRCTL_PROFILE or "default")')
    .option(
      '--base-url <url>',
      'server root, e.g. https://qr.example.com (overrides QRCTL_BASE_URL and the config)',
    )
    .option('--json', 'print machine-readable JSON on stdout')
    .option('--no-color', 'no colours (also NO_COLOR=1 or TERM=dumb)')
    .option('--verbose', 'log every HTTP answer on stderr (also QRCTL_DEBUG=1)')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => session.ui.stdout.write(text),
      // Under --json a usage error is one JSON object, written by `reportError` (report.ts).
      writeErr: (text) => {
        if (!session.jsonAsked) session.ui.stderr.write(text)
      },
      outputError: (text, write) => write(session.ui.err.red(text)),
    })
    .hook('preAction', (_root, action) => {
      session.configure(action.optsWithGlobals<GlobalOptions>())
    })
  withExamples(program, [
    'qrctl login',
    'qrctl create --name Menu --content https://example.com/menu --type dynamic',
    'qrctl list --type dynamic',
    'qrctl batch codes.csv --out results.csv',
    'qrctl render --content https://example.com',
  ])
  program.addHelpText(
    'after',
    '\nEnvironment: QRCTL_API_KEY, QRCTL_BASE_URL, QRCTL_PROFILE, NO_COLOR, XDG_CONFIG_HOME.\nExit codes: 0 ok, 1 error, 2 usage or cancelled, 4 authentication.\n',
  )

  registerAuthCommands(program, session)
  registerQrCodeCommands(program, session)
  registerImageCommands(program, session)
  registerBatchCommand(program, session)
  registerOrganiseCommands(program, session)
  registerShowcaseCommands(program, session)
  registerScansCommands(program, session)
  registerKeyCommands(program, session)
  registerWebhookCommands(program, session)
  registerConfigCommands(program, session)
  return program
}
