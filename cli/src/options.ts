import { type Command, InvalidArgumentError, Option } from 'commander'
import { EC_LEVELS } from './choices.js'

/** A commander parser for whole numbers in [min, max]. */
export function integer(min: number, max: number) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError('Not a whole number.')
    const n = Number(value)
    if (n < min || n > max) throw new InvalidArgumentError(`Must be ${min}–${max}.`)
    return n
  }
}

/** The style flags, as commander hands them over. */
export interface StyleFlags {
  fg?: string
  bg?: string
  ec?: (typeof EC_LEVELS)[number]
  margin?: number
}

/** `--fg`, `--bg`, `--ec`, `--margin`: the code's `style` (create, update, render). */
export function addStyleOptions(command: Command): Command {
  return command
    .option('--fg <color>', 'foreground (dark modules) colour, #RGB or #RRGGBB (default #000000)')
    .option('--bg <color>', 'background colour, #RGB or #RRGGBB (default #FFFFFF)')
    .addOption(
      new Option('--ec <level>', 'error correction: L 7%, M 15%, Q 25%, H 30% (default M)').choices(
        EC_LEVELS,
      ),
    )
    .option('--margin <modules>', 'quiet zone in modules, 0–16 (default 4)', integer(0, 16))
}

/** The style keys the flags set, or undefined when none was given (so the server's default applies). */
export function styleFromFlags(flags: StyleFlags) {
  const style = {
    ...(flags.fg === undefined ? {} : { foregroundColor: flags.fg }),
    ...(flags.bg === undefined ? {} : { backgroundColor: flags.bg }),
    ...(flags.ec === undefined ? {} : { errorCorrectionLevel: flags.ec }),
    ...(flags.margin === undefined ? {} : { margin: flags.margin }),
  }
  return Object.keys(style).length === 0 ? undefined : style
}

/** `--limit`, `--offset`, `--all` of the list commands. */
export function addPageOptions(command: Command, what: string): Command {
  return command
    .option('-L, --limit <n>', `how many ${what} to show, 1–100 (default 50)`, integer(1, 100))
    .option('--offset <n>', `skip this many ${what}`, integer(0, Number.MAX_SAFE_INTEGER))
    .option('-a, --all', `every ${what.replace(/s$/, '')}, page after page`)
}

export interface PageFlags {
  limit?: number
  offset?: number
  all?: boolean
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A commander parser for id arguments: a malformed id is a usage error, caught before any request. */
export function uuid(what: string) {
  return (value: string): string => {
    if (!UUID.test(value.trim())) throw new InvalidArgumentError(`Not a ${what} id (ids are UUIDs).`)
    return value.trim()
  }
}
