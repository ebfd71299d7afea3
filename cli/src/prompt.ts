import { createInterface } from 'node:readline/promises'
import { cancelled, usageError } from './errors.js'
import type { Ui } from './ui.js'

/** All of stdin, as text (for `login --with-token`, `batch -`, `--content -`). */
export async function readStdin(ui: Ui): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of ui.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  return Buffer.concat(chunks)
}

/** `-` means "read it from stdin" (a vCard, say), without the final line break. */
export async function valueOrStdin(ui: Ui, value: string): Promise<string> {
  if (value !== '-') return value
  return (await readStdin(ui)).toString('utf8').replace(/\r?\n$/, '')
}

/**
 * Reads a line from the terminal without echoing it (for API keys). Ctrl-C and Ctrl-D cancel;
 * escape sequences (arrow keys) are dropped rather than typed into the secret.
 */
export function promptSecret(ui: Ui, question: string): Promise<string> {
  const stdin = ui.stdin
  // Echo goes off before the prompt shows: a key pasted the moment `> ` appears stays hidden.
  stdin.setRawMode(true)
  ui.info(question)
  ui.stderr.write('> ')
  return new Promise((resolve, reject) => {
    let value = ''
    let inEscape = false
    const finish = (error?: Error) => {
      stdin.off('data', onData)
      stdin.setRawMode(false)
      stdin.pause()
      ui.stderr.write('\n')
      if (error) reject(error)
      else resolve(value.trim())
    }
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString('utf8')) {
        if (inEscape) {
          // CSI sequences end with a letter or ~; the [ and the parameters come before it.
          if (/[A-Za-z~]/.test(ch)) inEscape = false
          continue
        }
        if (ch === '\r' || ch === '\n') return finish()
        if (ch === '\u0003' || ch === '\u0004') return finish(cancelled())
        if (ch === '\u001b') inEscape = true
        else if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1)
        else if (ch >= ' ') value += ch
      }
    }
    stdin.resume()
    stdin.on('data', onData)
  })
}

/**
 * Asks a yes/no question on a terminal (default no). Without a terminal there is nobody to ask:
 * the command needs `--yes` (STYLE: every prompt has a flag).
 */
export async function confirm(
  ui: Ui,
  question: string,
  options: { yes?: boolean | undefined },
): Promise<void> {
  if (options.yes) return
  if (!ui.stdinIsTty)
    throw usageError(
      `${question.replace(/\?$/, '')}: refusing without confirmation`,
      'Pass --yes to confirm.',
    )
  const rl = createInterface({ input: ui.stdin, output: ui.stderr })
  // Ctrl-C and Ctrl-D end the question as a "no" instead of leaving it pending.
  const abort = new AbortController()
  rl.on('SIGINT', () => abort.abort())
  rl.on('close', () => abort.abort())
  let answer: string
  try {
    answer = await rl.question(`${question} ${ui.err.dim('[y/N]')} `, { signal: abort.signal })
  } catch {
    ui.stderr.write('\n')
    throw cancelled()
  } finally {
    rl.close()
  }
  if (!/^y(es)?$/i.test(answer.trim())) throw cancelled()
}
