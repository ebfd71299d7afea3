import type { ApiKey, ApiKeyWithSecret } from '@qrctl/sdk'
import { type Command, Option } from 'commander'
import { SCOPES } from '../choices.js'
import { withExamples } from '../help.js'
import { integer, uuid } from '../options.js'
import { type Column, printList, shortTime } from '../output.js'
import { confirm } from '../prompt.js'
import type { Session } from '../session.js'

const KEY_COLUMNS: Column<ApiKey>[] = [
  { header: 'ID', value: (k) => k.id },
  { header: 'NAME', value: (k) => k.name, shrink: true },
  { header: 'ENVIRONMENT', value: (k) => k.environment ?? '', display: (k) => k.environment ?? '-' },
  { header: 'SCOPE', value: (k) => k.scope },
  { header: 'KEY', value: (k) => `${k.prefix}…${k.lastFour}` },
  { header: 'CREATED', value: (k) => k.createdAt, display: (k) => shortTime(k.createdAt), dropOrder: 2 },
  {
    header: 'LAST USED',
    value: (k) => k.lastUsedAt ?? '',
    display: (k) => shortTime(k.lastUsedAt) || 'never',
  },
  {
    header: 'EXPIRES',
    value: (k) => k.expiresAt ?? '',
    display: (k) => shortTime(k.expiresAt) || '-',
    style: (text, color, k) => (k.expiresAt ? color.yellow(text) : text),
  },
]

/**
 * The secret is data: it goes to stdout, alone on its line (or inside the JSON), so
 * `qrctl key create --name CI > key.txt` captures exactly the key. The warning goes to stderr.
 */
function printSecret(session: Session, key: ApiKeyWithSecret, verb: string): void {
  const { ui } = session
  if (session.json) ui.print(JSON.stringify(key, null, 2))
  else ui.print(key.secret)
  ui.success(
    `${verb} key '${key.name}' (${key.scope}${key.environment ? `, ${key.environment}` : ''}, id ${key.id}). ` +
      'Store the secret now: it is not shown again.',
  )
}

function registerList(keys: Command, session: Session): void {
  const command = keys
    .command('list')
    .alias('ls')
    .description('List the API keys that still work (never their secrets)')
  withExamples(command, ['qrctl key list', 'qrctl key list --json'])
  command.action(async () => {
    const list = await session.call((client) => client.apiKeys.list(), 'Fetching keys…')
    printList(session.ui, session, list, KEY_COLUMNS)
  })
}

function registerCreate(keys: Command, session: Session): void {
  const command = keys
    .command('create')
    .description('Create an API key; its secret is printed once, to stdout')
    .requiredOption('-n, --name <name>', 'what the key is for, 1–100 characters')
    .option('-e, --environment <label>', 'a free label such as production or staging')
    .addOption(new Option('--scope <scope>', 'what the key may do').choices(SCOPES).default('read_write'))
  withExamples(command, [
    'qrctl key create --name CI --environment staging --scope read',
    'qrctl key create --name deploy > deploy-key.txt',
  ])
  command.action(async (flags: { name: string; environment?: string; scope: (typeof SCOPES)[number] }) => {
    const key = await session.call(
      (client) =>
        client.apiKeys.create({
          name: flags.name,
          scope: flags.scope,
          ...(flags.environment ? { environment: flags.environment } : {}),
        }),
      'Creating key…',
    )
    printSecret(session, key, 'Created')
  })
}

function registerRevoke(keys: Command, session: Session): void {
  const command = keys
    .command('revoke')
    .alias('delete')
    .description('Revoke an API key: it stops working at once')
    .argument('<id>', 'the key id (see qrctl key list)', uuid('key'))
    .option('-y, --yes', 'do not ask for confirmation (required when stdin is not a terminal)')
  withExamples(command, ['qrctl key revoke 0b7e…', 'qrctl key revoke 0b7e… --yes'])
  command.action(async (id: string, flags: { yes?: boolean }) => {
    await confirm(session.ui, `Revoke key ${id}? Anything using it stops working at once.`, flags)
    const result = await session.call((client) => client.apiKeys.revoke(id), 'Revoking…')
    if (session.json) session.ui.print(JSON.stringify(result, null, 2))
    session.ui.success(`Revoked key ${id}`)
  })
}

/**
 * When the rotated key is the one this profile stores, the profile gets the new one, so the
 * CLI keeps working once the grace period ends.
 */
async function updateStoredKey(session: Session, old: ApiKey | undefined, secret: string): Promise<void> {
  if (!old) return
  const config = await session.config()
  const stored = config.profiles[session.profile]
  if (!stored?.apiKey?.startsWith(old.prefix) || !stored.apiKey.endsWith(old.lastFour)) return
  await session.saveConfig({
    profiles: { ...config.profiles, [session.profile]: { ...stored, apiKey: secret } },
  })
  session.ui.info(`Profile '${session.profile}' used the old key; it now stores the new one.`)
}

function registerRotate(keys: Command, session: Session): void {
  const command = keys
    .command('rotate')
    .description(
      'Replace a key with a new one (same name, scope and environment); prints the new secret once',
    )
    .argument('<id>', 'the key id (see qrctl key list)', uuid('key'))
    .option(
      '-g, --grace-period <seconds>',
      'how long the old key keeps working, 0–86400 (default 0)',
      integer(0, 86_400),
    )
    .option('-y, --yes', 'do not ask for confirmation (required when stdin is not a terminal)')
  withExamples(command, [
    'qrctl key rotate 0b7e… --grace-period 3600',
    'qrctl key rotate 0b7e… --yes > new-key.txt',
  ])
  command.action(async (id: string, flags: { gracePeriod?: number; yes?: boolean }) => {
    const grace = flags.gracePeriod ?? 0
    await confirm(
      session.ui,
      `Rotate key ${id}? The old key stops working ${grace ? `in ${grace} s` : 'at once'}.`,
      flags,
    )
    const { key, old } = await session.call(async (client) => {
      const current = (await client.apiKeys.list()).find((k) => k.id === id)
      return { key: await client.apiKeys.rotate(id, { gracePeriodSeconds: grace }), old: current }
    }, 'Rotating…')
    printSecret(session, key, 'Rotated')
    await updateStoredKey(session, old, key.secret)
  })
}

export function registerKeyCommands(program: Command, session: Session): void {
  const keys = program.command('key').alias('keys').description('Manage API keys (needs a read_write key)')
  withExamples(keys, [
    'qrctl key list',
    'qrctl key create --name CI --scope read',
    'qrctl key rotate 0b7e… --grace-period 3600',
  ])
  registerList(keys, session)
  registerCreate(keys, session)
  registerRevoke(keys, session)
  registerRotate(keys, session)
}
