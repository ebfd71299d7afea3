import { CommanderError } from 'commander'
import { CliError, EXIT, type ExitCode, LOGIN_HINT } from './errors.js'
import { loadSdk } from './lazy.js'
import type { Session } from './session.js'

interface Report {
  message: string
  lines?: string[]
  hint?: string | undefined
  exitCode: ExitCode
  /** For --json: the API's error code, status, request id and issues (flags named). */
  api?: { code: string; status: number; requestId: string | undefined }
  issues?: { field: string; message: string }[]
}

/** The flag (or API path) an issue is about: `style.margin` → `--margin`, `ctaButtons.2.url` → `--cta`. */
function flagOf(session: Session, path: string): string {
  const names = session.flagNames
  return names[path] ?? names[path.replace(/\.\d+(\..*)?$/, '')] ?? (path || '(body)')
}

/** `(HTTP 404 not_found, request id req_…)`: what support asks for. */
function apiSuffix(error: { status: number; code: string; requestId: string | undefined }): string {
  return `(HTTP ${error.status} ${error.code}${error.requestId ? `, request id ${error.requestId}` : ''})`
}

async function describe(error: unknown, session: Session): Promise<Report> {
  if (error instanceof CliError)
    return { message: error.message, lines: error.lines, hint: error.hint, exitCode: error.exitCode }
  const sdk = await loadSdk()
  const api =
    error instanceof sdk.QrctlApiError
      ? { code: error.code, status: error.status, requestId: error.requestId }
      : undefined
  if (error instanceof sdk.QrctlAuthenticationError) {
    const { profile } = session
    const settings = await session.settings().catch(() => undefined)
    // QRCTL_API_KEY overrides the profile: say which key was refused, or `qrctl login` looks broken.
    const hint =
      settings?.apiKey?.source === 'env'
        ? 'The key in QRCTL_API_KEY was refused. Set it to a valid key, or unset it to use the key `qrctl login` stores.'
        : `The API key of profile '${profile}' was refused. ${LOGIN_HINT}`
    return { message: `${error.message} ${apiSuffix(error)}`, hint, exitCode: EXIT.auth, api }
  }
  if (error instanceof sdk.QrctlValidationError) {
    const issues = error.issues.map((issue) => ({
      field: flagOf(session, issue.path),
      message: issue.message,
    }))
    const [only] = issues
    // One problem is said once, after its flag; several are listed under the API's summary.
    if (only && issues.length === 1)
      return {
        message: `${only.field}: ${only.message} ${apiSuffix(error)}`,
        exitCode: EXIT.error,
        api,
        issues,
      }
    return {
      message: `${error.message} ${apiSuffix(error)}`,
      lines: issues.map((issue) => `${issue.field}: ${issue.message}`),
      exitCode: EXIT.error,
      api,
      issues,
    }
  }
  if (error instanceof sdk.QrctlRateLimitError) {
    return {
      message: `${error.message} ${apiSuffix(error)}`,
      hint: error.retryAfter === undefined ? undefined : `Try again in ${error.retryAfter} s.`,
      exitCode: EXIT.error,
      api,
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
      api,
    }
  }
  if (error instanceof sdk.QrctlApiError)
    return { message: `${error.message} ${apiSuffix(error)}`, exitCode: EXIT.error, api }
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
    // commander printed its own message (not under --json); help and --version end with 0,
    // every usage error with 2.
    if (error.exitCode === 0) return EXIT.ok
    if (session.jsonAsked) {
      const message =
        error.code === 'commander.help'
          ? 'A subcommand is needed; run with --help for the list.'
          : error.message.replace(/^error: /, '')
      session.ui.info(JSON.stringify({ error: { message, exitCode: EXIT.usage } }))
    }
    return EXIT.usage
  }
  const { ui } = session
  const report = await describe(error, session)
  if (session.json) {
    // Scripts read errors as they read data: one JSON object, on stderr.
    const { message, hint, exitCode, api, issues } = report
    ui.info(
      JSON.stringify({
        error: { message, ...api, ...(issues ? { issues } : {}), ...(hint ? { hint } : {}), exitCode },
      }),
    )
    return report.exitCode
  }
  ui.info(`${ui.err.red('error:')} ${report.message}`)
  for (const line of report.lines ?? []) ui.info(`  ${line}`)
  if (report.hint) ui.info(ui.err.dim(report.hint))
  if (session.verbose && error instanceof Error && !(error instanceof CliError) && error.stack)
    ui.info(ui.err.dim(error.stack))
  return report.exitCode
}
