import { EXIT, type ExitCode } from './errors.js'
import { createProgram } from './program.js'
import { reportError } from './report.js'
import { Session } from './session.js'

/**
 * Runs the CLI on `argv` (as `process.argv`) and resolves with the exit code; never calls
 * `process.exit`, so piped output is flushed before the process ends.
 */
export async function run(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<ExitCode> {
  const session = new Session(env)
  const program = createProgram(session)
  const ownArgs = argv.slice(2)
  const end = ownArgs.indexOf('--')
  session.jsonAsked = (end === -1 ? ownArgs : ownArgs.slice(0, end)).includes('--json')
  try {
    if (argv.length <= 2) {
      program.outputHelp()
      return EXIT.ok
    }
    await program.parseAsync([...argv])
    return session.exitCode
  } catch (error) {
    return await reportError(error, session)
  } finally {
    await session.close()
  }
}
