import type { Command } from 'commander'
import { maskKey, normalizeBaseUrl, type Setting } from '../config.js'
import { CliError, usageError } from '../errors.js'
import { withExamples } from '../help.js'
import { type Column, printList } from '../output.js'
import type { Session } from '../session.js'

interface Row {
  key: string
  value: string
  source: string
}

const KEYS = ['baseUrl', 'apiKey'] as const
type Key = (typeof KEYS)[number]

const SOURCE_TEXT: Record<string, string> = {
  flag: '--base-url',
  env: 'environment',
  file: 'config file',
  default: 'default',
}

/** `base-url`, `base_url` and `baseUrl` name the same setting. */
function settingKey(name: string): Key {
  const squashed = name.toLowerCase().replace(/[-_]/g, '')
  const key = KEYS.find((k) => k.toLowerCase() === squashed)
  if (!key) throw usageError(`Unknown setting '${name}'`, `Settings: ${KEYS.join(', ')}.`)
  return key
}

function row(key: Key, setting: Setting | undefined, env: string): Row {
  if (!setting) return { key, value: '', source: 'not set' }
  const value = key === 'apiKey' ? maskKey(setting.value) : setting.value
  return {
    key,
    value,
    source: setting.source === 'env' ? env : (SOURCE_TEXT[setting.source] ?? setting.source),
  }
}

async function rows(session: Session): Promise<Row[]> {
  const settings = await session.settings()
  return [
    {
      key: 'profile',
      value: settings.profile,
      source: session.options.profile ? '--profile' : session.env.QRCTL_PROFILE ? 'QRCTL_PROFILE' : 'default',
    },
    row('baseUrl', settings.baseUrl, 'QRCTL_BASE_URL'),
    row('apiKey', settings.apiKey, 'QRCTL_API_KEY'),
    { key: 'configFile', value: session.configPath, source: '' },
  ]
}

const COLUMNS: Column<Row>[] = [
  { header: 'SETTING', value: (r) => r.key },
  { header: 'VALUE', value: (r) => r.value, style: (text, color, r) => (r.value ? text : color.dim('-')) },
  { header: 'FROM', value: (r) => r.source, style: (text, color) => color.dim(text) },
]

export function registerConfigCommands(program: Command, session: Session): void {
  const config = program.command('config').description('Show and change the CLI settings of a profile')
  withExamples(config, [
    'qrctl config list',
    'qrctl config get baseUrl',
    'qrctl config set baseUrl https://qr.example.com',
  ])
  config.addHelpText(
    'after',
    '\nPrecedence: --base-url, then QRCTL_BASE_URL / QRCTL_API_KEY, then the config file of the profile.\n',
  )

  const list = config
    .command('list')
    .alias('ls')
    .description('Show the effective settings and where each comes from')
  withExamples(list, ['qrctl config list', 'qrctl config list --profile staging --json'])
  list.action(async () => {
    printList(session.ui, session, await rows(session), COLUMNS)
  })

  const get = config
    .command('get')
    .description('Print one effective setting (the API key masked)')
    .argument('<key>', `one of ${KEYS.join(', ')}`)
  withExamples(get, ['qrctl config get baseUrl'])
  get.action(async (name: string) => {
    const key = settingKey(name)
    const found = (await rows(session)).find((r) => r.key === key)
    if (!found?.value) throw new CliError(`${key} is not set (profile '${session.profile}')`)
    if (session.json) session.ui.print(JSON.stringify(found, null, 2))
    else session.ui.print(found.value)
  })

  const set = config
    .command('set')
    .description('Store a setting in the profile (baseUrl; keys are stored with `qrctl login`)')
    .argument('<key>', 'baseUrl')
    .argument('<value>', 'the new value')
  withExamples(set, [
    'qrctl config set baseUrl https://qr.example.com',
    'qrctl config set base-url http://localhost:3000 --profile dev',
  ])
  set.action(async (name: string, value: string) => {
    const key = settingKey(name)
    if (key === 'apiKey')
      throw usageError(
        'API keys are not taken as arguments (other users can read them in the process list)',
        'Use `qrctl login`, which reads the key from a hidden prompt or from stdin with --with-token.',
      )
    const baseUrl = normalizeBaseUrl(value)
    const file = await session.config()
    const profile = { ...file.profiles[session.profile], baseUrl }
    await session.saveConfig({ profiles: { ...file.profiles, [session.profile]: profile } })
    session.ui.success(`baseUrl = ${baseUrl} (profile '${session.profile}')`)
  })
}
