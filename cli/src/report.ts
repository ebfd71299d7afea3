import { CommanderError } from 'commander'
import { CliError, EXIT, type ExitCode, LOGIN_HINT } from './errors.js'
import { loadSdk } from './lazy.js'
import type { Session } from './session.js'

interface Report {
  message: string
  lines?: string[]
  hint?: string | undefined
  exitCode: ExitCode
}

/** `(HTTP 404 not_found, request id req_…)`: what support asks for. */
function apiSuffix(error: { status: number; code: string; requestId: string | undefined }): string {
  return `(HTTP ${error.status} ${error.code}${error.requestId ? `, request id ${error.requestId}` : ''})`
}

async function describe(error: unknown, session: Session): Promise<Report> {
  if (error instanceof CliError)
    return { message: error.message, lines: error.lines, hint: error.hint, exitCode: error.exitCode }
  const sdk = await loadSdk()
  if (error instanceof sdk.QrctlAuthenticationError) {
    const { profile } = session
    return {
      message: `${error.message} ${apiSuffix(error)}`,
      hint: `The API key of profile '${profile}' was refused. ${LOGIN_HINT}`,
      exitCode: EXIT.auth,
    }
  }
  if (error instanceof sdk.QrctlValidationError) {
    return {
      message: `${error.message} ${apiSuffix(error)}`,
      lines: error.issues.map((issue) => `${issue.path || '(body)'}: ${issue.message}`),
      exitCode: EXIT.error,
    }
  }
  if (error instanceof sdk.QrctlRateLimitError) {
    return {
      message: `${error.message} ${apiSuffix(error)}`,
      hint: error.retryAfter === undefined ? undefined : `Try again in ${error.retryAfter} s.`,
      exitCode: EXIT.error,
    }
  }
  if (error instanceof sdk.QrctlPermissionError) {
    return {
      message: `${error.message} ${apiSuffix(error)}`,
      hint:
        error.code === 'insufficient_scope'
          ? 'This key’s scope does not allow it; log in with a read_write key.'
          : undefined,
      exitCode: EXIT.error,
    }
  }
  if (error instanceof sdk.QrctlApiError)
    return { message: `${error.message} ${apiSuffix(error)}`, exitCode: EXIT.error }
  if (error instanceof sdk.QrctlConnectionError) {
    const settings = await session.settings().catch(() => undefined)
    return {
      message: error.message,
      hint: `Is the server running? The base URL ${settings ? `(${settings.baseUrl.value}, from ${settings.baseUrl.source}) ` : ''}is set with --base-url, QRCTL_BASE_URL or \`qrctl config set baseUrl URL\`.`,
      exitCode: EXIT.error,
    }
  }
  if (error instanceof sdk.QrctlError) return { message: error.message, exitCode: EXIT.error }
  const message = error instanceof Error ? error.message : String(error)
  return { message: `Unexpected error: ${message}`, exitCode: EXIT.error }
}

/** Prints an error the way people and scripts need it (stderr, API message and request id, a hint) and picks the exit code. */
export async function reportError(error: unknown, session: Session): Promise<ExitCode> {
  if (error instanceof CommanderError) {
    // commander printed its own message; help and --version end with 0, every usage error with 2.
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage
  }
  const { ui } = session
  const report = await describe(error, session)
  ui.info(`${ui.err.red('error:')} ${report.message}`)
  for (const line of report.lines ?? []) ui.info(`  ${line}`)
  if (report.hint) ui.info(ui.err.dim(report.hint))
  if (session.verbose && error instanceof Error && !(error instanceof CliError) && error.stack)
    ui.info(ui.err.dim(error.stack))
  return report.exitCode
}
