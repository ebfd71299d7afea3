/** Exit codes (STYLE.md "Errors"): scripts branch on these, so they never change meaning. */
export const EXIT = {
  ok: 0,
  error: 1,
  /** A usage error, or the user said no (or pressed Ctrl-C). */
  usage: 2,
  /** No key, or the API refused it. */
  auth: 4,
} as const

export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

/** An error the CLI reports as it is: `message` on stderr, an optional `hint` under it, then `exitCode`. */
export class CliError extends Error {
  override name = 'CliError'
  readonly exitCode: ExitCode
  readonly hint: string | undefined
  /** Indented lines under the message, such as one per invalid field. */
  readonly lines: string[]

  constructor(message: string, options: { exitCode?: ExitCode; hint?: string; lines?: string[] } = {}) {
    super(message)
    this.exitCode = options.exitCode ?? EXIT.error
    this.hint = options.hint
    this.lines = options.lines ?? []
  }
}

export function usageError(message: string, hint?: string): CliError {
  return new CliError(message, { exitCode: EXIT.usage, ...(hint ? { hint } : {}) })
}

export function cancelled(message = 'Cancelled'): CliError {
  return new CliError(message, { exitCode: EXIT.usage })
}

export const LOGIN_HINT = 'Run `qrctl login` to store a key, or set QRCTL_API_KEY.'

export function notLoggedIn(profile: string): CliError {
  return new CliError(`Not logged in (profile '${profile}')`, { exitCode: EXIT.auth, hint: LOGIN_HINT })
}
