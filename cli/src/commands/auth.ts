import type { Command } from 'commander'
import { maskKey } from '../config.js'
import { CliError, EXIT, usageError } from '../errors.js'
import { withExamples } from '../help.js'
import { loadContract, loadSdk } from '../lazy.js'
import { promptSecret, readStdin } from '../prompt.js'
import type { Session } from '../session.js'

async function readKey(session: Session, withToken: boolean | undefined, baseUrl: string): Promise<string> {
  const { ui } = session
  if (withToken) return (await readStdin(ui)).toString('utf8').trim()
  if (!ui.stdinIsTty)
    throw usageError(
      'No terminal to prompt on',
      'Pipe the key in instead: qrctl login --with-token < key.txt',
    )
  return promptSecret(ui, `Paste an API key for ${baseUrl} (the input is hidden):`)
}

/**
 * Checks the key with one cheap read. Only a 401 means a bad key: a write-only key may not
 * list (403 insufficient_scope) and an account without a plan gets 403 plan_required, but in
 * both cases the server knew the key.
 */
async function verifyKey(session: Session, apiKey: string, baseUrl: string): Promise<string | undefined> {
  const sdk = await loadSdk()
  const client = await session.createClient(apiKey, baseUrl)
  const stop = session.ui.spin('Checking the key…')
  try {
    await client.qrCodes.list({ limit: 1 })
    return undefined
  } catch (error) {
    if (error instanceof sdk.QrctlAuthenticationError)
      throw new CliError(`The server refused this key: ${error.message}`, {
        exitCode: EXIT.auth,
        hint: 'Check that you copied the whole key and that it has not been revoked.',
      })
    if (error instanceof sdk.QrctlPermissionError) return error.message
    throw error
  } finally {
    stop()
    await client.close()
  }
}

function registerLogin(program: Command, session: Session): void {
  const command = program
    .command('login')
    .description('Store an API key for this profile, after checking it with the server')
    .option('--with-token', 'read the key from stdin instead of prompting for it')
  withExamples(command, [
    'qrctl login',
    'qrctl login --with-token < key.txt',
    'qrctl login --profile staging --base-url https://qr.staging.example.com',
  ])
  command.addHelpText(
    'after',
    '\nThe key is stored in $XDG_CONFIG_HOME/qrctl/config.json (default ~/.config), readable only by you.\nKeys are never taken as command-line arguments, which other users can see in the process list.\n',
  )
  command.action(async (flags: { withToken?: boolean }) => {
    const { ui } = session
    const settings = await session.settings()
    const baseUrl = settings.baseUrl.value
    const apiKey = await readKey(session, flags.withToken, baseUrl)
    if (!apiKey) throw usageError('No key given')
    const { API_KEY_PATTERN } = await loadContract()
    if (!API_KEY_PATTERN.test(apiKey))
      throw new CliError('That is not a qrctl API key: they are qrk_ followed by 40 letters and digits', {
        exitCode: EXIT.auth,
      })
    const warning = await verifyKey(session, apiKey, baseUrl)
    const config = await session.config()
    const profile = { ...config.profiles[settings.profile], apiKey }
    // A server named on this command line (or in the environment) is remembered with the key.
    if (settings.baseUrl.source === 'flag' || settings.baseUrl.source === 'env') profile.baseUrl = baseUrl
    await session.saveConfig({ profiles: { ...config.profiles, [settings.profile]: profile } })
    ui.success(`Logged in to ${baseUrl} with key ${maskKey(apiKey)} (profile '${settings.profile}')`)
    if (warning) ui.warn(`The key works, but: ${warning}`)
    if (session.env.QRCTL_API_KEY)
      ui.warn('QRCTL_API_KEY is set: it overrides the stored key until you unset it.')
  })
}

function registerLogout(program: Command, session: Session): void {
  const command = program.command('logout').description('Forget the API key stored for this profile')
  withExamples(command, ['qrctl logout', 'qrctl logout --profile staging'])
  command.action(async () => {
    const { ui } = session
    const config = await session.config()
    const name = session.profile
    const stored = config.profiles[name]
    if (!stored?.apiKey) {
      ui.info(`Not logged in (profile '${name}'): nothing to do.`)
      return
    }
    const { apiKey: _forgotten, ...rest } = stored
    const profiles = { ...config.profiles, [name]: rest }
    if (Object.keys(rest).length === 0) delete profiles[name]
    await session.saveConfig({ profiles })
    ui.success(`Logged out (profile '${name}'). The key still works until it is revoked: qrctl key revoke ID`)
  })
}

export function registerAuthCommands(program: Command, session: Session): void {
  registerLogin(program, session)
  registerLogout(program, session)
}
