import type { Qrctl } from '@qrctl/sdk'
import {
  type ConfigFile,
  configPath,
  DEFAULT_PROFILE,
  readConfig,
  resolveSettings,
  type Settings,
  writeConfig,
} from './config.js'
import { CliError, EXIT, type ExitCode, LOGIN_HINT, notLoggedIn } from './errors.js'
import { loadContract, loadSdk } from './lazy.js'
import { Ui } from './ui.js'

/** Options every command accepts (`qrctl --help`). */
export interface GlobalOptions {
  profile?: string
  baseUrl?: string
  json?: boolean
  color: boolean
  verbose?: boolean
}

/**
 * One run of the CLI: the global options, the terminal, the config and, once a command needs
 * it, the SDK client. Commands get it through their action; `close` ends it.
 */
export class Session {
  readonly env: NodeJS.ProcessEnv
  ui: Ui
  options: GlobalOptions = { color: true }
  /** What `run` exits with when the action returns normally (batch sets 1 when rows failed). */
  exitCode: ExitCode = EXIT.ok
  /**
   * `--json` on the command line, known before commander parses it: a usage error is found
   * while parsing, before `configure`, and scripts read it as JSON too (`reportError`).
   */
  jsonAsked = false
  #config: ConfigFile | undefined
  #client: Qrctl | undefined

  constructor(env: NodeJS.ProcessEnv) {
    this.env = env
    this.ui = new Ui({ color: true, env })
  }

  /**
   * The command's flag for each API field (`targetUrl` → `--target-url`), set by commands that
   * send a body, so a validation error names what the user typed rather than the API path.
   */
  flagNames: Readonly<Record<string, string>> = {}

  /** Called once commander has parsed the global options. */
  configure(options: GlobalOptions): void {
    this.options = options
    this.ui = new Ui({ color: options.color, env: this.env })
  }

  get json(): boolean {
    return this.options.json === true
  }

  get profile(): string {
    return this.options.profile || this.env.QRCTL_PROFILE || DEFAULT_PROFILE
  }

  get configPath(): string {
    return configPath(this.env)
  }

  get verbose(): boolean {
    return (
      this.options.verbose === true || (this.env.QRCTL_DEBUG !== undefined && this.env.QRCTL_DEBUG !== '')
    )
  }

  async config(): Promise<ConfigFile> {
    this.#config ??= await readConfig(this.configPath)
    return this.#config
  }

  async saveConfig(config: ConfigFile): Promise<void> {
    await writeConfig(this.configPath, config)
    this.#config = config
  }

  async settings(): Promise<Settings> {
    return resolveSettings({
      profile: this.profile,
      flags: { baseUrl: this.options.baseUrl },
      env: this.env,
      file: await this.config(),
    })
  }

  /** A client for a given key and server, reporting retries (and, with --verbose, every answer) on stderr. */
  async createClient(apiKey: string, baseUrl: string): Promise<Qrctl> {
    const { Qrctl } = await loadSdk()
    const { API_KEY_PREFIX } = await loadContract()
    if (!apiKey.startsWith(API_KEY_PREFIX)) {
      throw new CliError(`That is not a qrctl API key (they start with ${API_KEY_PREFIX})`, {
        exitCode: EXIT.auth,
        hint: LOGIN_HINT,
      })
    }
    return new Qrctl({
      apiKey,
      baseUrl,
      onRetry: (event) => {
        if (this.verbose || this.ui.stderrIsTty)
          this.ui.warn(`${event.error.message}; retrying in ${(event.delayMs / 1000).toFixed(1)} s`)
      },
      ...(this.verbose
        ? {
            onResponse: (event) => {
              const limit = event.headers.get('x-ratelimit-remaining')
              this.ui.info(
                this.ui.err.dim(
                  `${event.method} ${event.url} → ${event.status} in ${event.durationMs} ms` +
                    `${limit === null ? '' : ` (rate limit: ${limit} left, reset in ${event.headers.get('x-ratelimit-reset')} s)`}` +
                    `${event.requestId ? ` [${event.requestId}]` : ''}`,
                ),
              )
            },
          }
        : {}),
    })
  }

  /** The client for this profile; throws `not logged in` (exit 4) when there is no key. */
  async client(): Promise<Qrctl> {
    if (this.#client) return this.#client
    const settings = await this.settings()
    if (!settings.apiKey) throw notLoggedIn(settings.profile)
    this.#client = await this.createClient(settings.apiKey.value, settings.baseUrl.value)
    return this.#client
  }

  /**
   * Runs one piece of API work with a spinner on a terminal: the spinner starts before the SDK
   * is even loaded, so something shows within milliseconds.
   */
  async call<T>(work: (client: Qrctl) => Promise<T>, label?: string): Promise<T> {
    const stop = this.ui.spin(label)
    try {
      return await work(await this.client())
    } finally {
      stop()
    }
  }

  async close(): Promise<void> {
    this.ui.clearSpinner()
    await this.#client?.close()
  }
}
