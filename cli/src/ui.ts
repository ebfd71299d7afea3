import { Chalk, type ChalkInstance, supportsColor, supportsColorStderr } from 'chalk'

export interface UiOptions {
  /** False with `--no-color`. */
  color: boolean
  env: NodeJS.ProcessEnv
  stdout?: NodeJS.WriteStream
  stderr?: NodeJS.WriteStream
  stdin?: NodeJS.ReadStream
}

const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

/**
 * Colour is for people: only on a terminal, and never with NO_COLOR (any non-empty value,
 * no-color.org), TERM=dumb or --no-color. chalk reads none of these itself.
 */
export function colorLevel(isTty: boolean, options: UiOptions, detected: number): 0 | 1 | 2 | 3 {
  if (!isTty || !options.color) return 0
  if (options.env.NO_COLOR) return 0
  if (options.env.TERM === 'dumb') return 0
  return Math.max(1, detected) as 1 | 2 | 3
}

/**
 * Where output goes and how it looks: data to stdout (`print`), everything for people to
 * stderr (`info`, `warn`, the spinner), each stream styled for what it is connected to.
 */
export class Ui {
  readonly stdout: NodeJS.WriteStream
  readonly stderr: NodeJS.WriteStream
  readonly stdin: NodeJS.ReadStream
  readonly stdoutIsTty: boolean
  readonly stderrIsTty: boolean
  readonly stdinIsTty: boolean
  /** Colours for stdout. */
  readonly out: ChalkInstance
  /** Colours for stderr. */
  readonly err: ChalkInstance
  /** Whether stderr takes `\r` redraws (spinner, progress bar). */
  readonly canAnimate: boolean
  #spinner: NodeJS.Timeout | undefined
  #spinnerText = ''

  constructor(options: UiOptions) {
    this.stdout = options.stdout ?? process.stdout
    this.stderr = options.stderr ?? process.stderr
    this.stdin = options.stdin ?? process.stdin
    this.stdoutIsTty = this.stdout.isTTY === true
    this.stderrIsTty = this.stderr.isTTY === true
    this.stdinIsTty = this.stdin.isTTY === true
    const dumb = options.env.TERM === 'dumb'
    this.out = new Chalk({
      level: colorLevel(this.stdoutIsTty, options, supportsColor ? supportsColor.level : 0),
    })
    this.err = new Chalk({
      level: colorLevel(this.stderrIsTty, options, supportsColorStderr ? supportsColorStderr.level : 0),
    })
    // A dumb terminal cannot move the cursor back, so the spinner would print every frame.
    this.canAnimate = this.stderrIsTty && !dumb
  }

  /** Terminal width for tables; 80 when unknown. */
  get columns(): number {
    return this.stdout.columns || 80
  }

  /** Data, to stdout. */
  print(text: string): void {
    this.clearSpinner()
    this.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
  }

  /** A message for people, to stderr. */
  info(message: string): void {
    this.clearSpinner()
    this.stderr.write(`${message}\n`)
  }

  success(message: string): void {
    this.info(`${this.err.green('✓')} ${message}`)
  }

  warn(message: string): void {
    this.info(`${this.err.yellow('!')} ${message}`)
  }

  /**
   * Shows a spinner on a terminal's stderr until the returned function is called; nothing
   * when stderr is not a terminal. The first frame is drawn at once, so a command that waits
   * on the network shows life within a few milliseconds of starting.
   */
  spin(text = 'Working…'): () => void {
    if (!this.canAnimate || this.#spinner) return () => undefined
    let frame = 0
    this.#spinnerText = text
    const draw = () => {
      const glyph = SPINNER_FRAMES[frame++ % SPINNER_FRAMES.length]
      this.stderr.write(`\r${this.err.cyan(glyph)} ${this.#spinnerText}\x1b[K`)
    }
    draw()
    this.#spinner = setInterval(draw, 80)
    this.#spinner.unref()
    return () => this.clearSpinner()
  }

  /** Changes the spinner's text, if one is running. */
  setSpinnerText(text: string): void {
    this.#spinnerText = text
  }

  clearSpinner(): void {
    if (!this.#spinner) return
    clearInterval(this.#spinner)
    this.#spinner = undefined
    this.stderr.write('\r\x1b[K')
  }
}
