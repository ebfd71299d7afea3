import type { BulkUpdateParams, Qrctl, TagCount } from '@qrctl/sdk'
import type { Command } from 'commander'
import { CliError, usageError } from '../errors.js'
import { withExamples } from '../help.js'
import { printList } from '../output.js'
import { confirm, readStdin } from '../prompt.js'
import type { Session } from '../session.js'

/** The API takes at most this many ids per bulk request (DESIGN §17); longer lists are split. */
const BULK_MAX = 100
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The ids of the arguments, `-` standing for whitespace-separated ids on stdin. */
async function readIds(session: Session, args: readonly string[]): Promise<string[]> {
  const ids: string[] = []
  for (const arg of args) {
    if (arg !== '-') ids.push(arg.trim())
    else ids.push(...(await readStdin(session.ui)).toString('utf8').split(/\s+/).filter(Boolean))
  }
  const bad = ids.find((id) => !UUID.test(id))
  if (bad !== undefined) throw usageError(`Not a QR code id: '${bad}' (ids are UUIDs)`)
  if (ids.length === 0)
    throw usageError('No ids given', 'Pass ids as arguments, or - to read them from stdin.')
  return ids
}

interface BulkAnswer {
  count: number
  errors: string[]
}

/**
 * Sends the ids 100 at a time; the errors' `ids[i]` are renumbered to positions in the whole
 * list, so they point at the input line.
 */
async function inChunks(
  session: Session,
  ids: readonly string[],
  send: (client: Qrctl, chunk: string[]) => Promise<BulkAnswer>,
  label: string,
): Promise<BulkAnswer> {
  const total: BulkAnswer = { count: 0, errors: [] }
  for (let offset = 0; offset < ids.length; offset += BULK_MAX) {
    const chunk = ids.slice(offset, offset + BULK_MAX)
    const answer = await session.call((client) => send(client, chunk), label)
    total.count += answer.count
    for (const error of answer.errors)
      total.errors.push(error.replace(/^ids\[(\d+)\]/, (_, i: string) => `ids[${offset + Number(i)}]`))
  }
  return total
}

/** Prints the answer (`--json`: `{ [noun]: n, errors }` on stdout) and fails when any id failed. */
function report(session: Session, answer: BulkAnswer, noun: string, done: string): void {
  const { ui } = session
  if (session.json) ui.print(JSON.stringify({ [noun]: answer.count, errors: answer.errors }, null, 2))
  else ui.success(`${done} ${answer.count} code${answer.count === 1 ? '' : 's'}`)
  if (answer.errors.length === 0) return
  throw new CliError(`${answer.errors.length} id${answer.errors.length === 1 ? '' : 's'} not changed`, {
    lines: answer.errors,
  })
}

const update = (params: Omit<BulkUpdateParams, 'ids'>) => async (client: Qrctl, ids: string[]) => {
  const result = await client.qrCodes.bulkUpdate({ ...params, ids })
  return { count: result.updated, errors: result.errors }
}

function registerBulk(program: Command, session: Session): void {
  const bulk = program
    .command('bulk')
    .description('Change many QR codes at once: ids as arguments, or - to read them from stdin')
  withExamples(bulk, [
    'qrctl list --tag spring --ids | qrctl bulk deactivate -',
    'qrctl bulk activate 6f1c… 0a9e…',
    'qrctl list --search "table 1" --ids | qrctl bulk delete - --yes',
    'qrctl list --deleted --ids | qrctl bulk restore -',
  ])
  const ids = (command: Command) => command.argument('<ids...>', 'code ids, or - to read them from stdin')
  ids(bulk.command('activate').description('Resume the codes: their short links redirect again')).action(
    async (args: string[]) => {
      const answer = await inChunks(
        session,
        await readIds(session, args),
        update({ set: { isActive: true } }),
        'Activating…',
      )
      report(session, answer, 'updated', 'Activated')
    },
  )
  ids(bulk.command('deactivate').description('Pause the codes: their short links answer 410')).action(
    async (args: string[]) => {
      const answer = await inChunks(
        session,
        await readIds(session, args),
        update({ set: { isActive: false } }),
        'Pausing…',
      )
      report(session, answer, 'updated', 'Deactivated')
    },
  )
  ids(bulk.command('delete').description('Delete the codes (each restorable for 30 days)'))
    .option('-y, --yes', 'do not ask for confirmation (required when stdin is not a terminal)')
    .action(async (args: string[], flags: { yes?: boolean }) => {
      const list = await readIds(session, args)
      await confirm(session.ui, `Delete ${list.length} QR code${list.length === 1 ? '' : 's'}?`, flags)
      const answer = await inChunks(
        session,
        list,
        async (client, chunk) => {
          const result = await client.qrCodes.bulkDelete(chunk)
          return { count: result.deleted, errors: result.errors }
        },
        'Deleting…',
      )
      report(session, answer, 'deleted', 'Deleted')
    })
  ids(bulk.command('restore').description('Bring back codes deleted in the last 30 days')).action(
    async (args: string[]) => {
      const answer = await inChunks(
        session,
        await readIds(session, args),
        async (client, chunk) => {
          const result = await client.qrCodes.bulkRestore(chunk)
          return { count: result.restored, errors: result.errors }
        },
        'Restoring…',
      )
      report(session, answer, 'restored', 'Restored')
    },
  )
}

function registerTag(program: Command, session: Session): void {
  const tag = program
    .command('tag')
    .description('Tags on QR codes: list them, add or remove one on many codes')
  withExamples(tag, [
    'qrctl tag list',
    'qrctl tag add spring 6f1c… 0a9e…',
    'qrctl list --search menu --ids | qrctl tag add menu -',
    'qrctl tag remove spring -  < ids.txt',
  ])
  tag
    .command('list')
    .alias('ls')
    .description('Every tag on your codes (not deleted), with how many codes carry it')
    .action(async () => {
      const tags = await session.call((client) => client.tags.list(), 'Fetching tags…')
      printList<TagCount>(session.ui, session, tags, [
        { header: 'TAG', value: (t) => t.name },
        { header: 'CODES', value: (t) => String(t.count) },
      ])
      if (tags.length === 0 && session.ui.stderrIsTty && !session.json) session.ui.info('No tags yet.')
    })
  for (const [verb, done] of [
    ['add', 'Tagged'],
    ['remove', 'Untagged'],
  ] as const) {
    tag
      .command(verb)
      .description(verb === 'add' ? 'Add a tag to codes' : 'Remove a tag from codes')
      .argument('<tag>', 'the tag (trimmed and lower-cased)')
      .argument('<ids...>', 'code ids, or - to read them from stdin')
      .action(async (name: string, args: string[]) => {
        const change = verb === 'add' ? { addTags: [name] } : { removeTags: [name] }
        const answer = await inChunks(session, await readIds(session, args), update(change), 'Updating…')
        report(session, answer, 'updated', done)
      })
  }
}

/** `qrctl tag …` and `qrctl bulk …` (DESIGN §17). */
export function registerOrganiseCommands(program: Command, session: Session): void {
  registerTag(program, session)
  registerBulk(program, session)
}
