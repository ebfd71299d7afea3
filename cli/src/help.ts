import type { Command } from 'commander'

/** Examples under a command's help, as `gh` prints them. */
export function withExamples(command: Command, examples: readonly string[]): Command {
  return command.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n`)
}
