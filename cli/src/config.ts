import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, isAbsolute, join } from 'node:path'
import { BaseUrlError, DEFAULT_BASE_URL, normalizeBaseUrl as sdkBaseUrl } from '@qrctl/sdk/base-url'
import { CliError } from './errors.js'

export const DEFAULT_PROFILE = 'default'
export { DEFAULT_BASE_URL }

/** What one profile stores. */
export interface Profile {
  apiKey?: string
  baseUrl?: string
}

/** `$XDG_CONFIG_HOME/qrctl/config.json`. */
export interface ConfigFile {
  profiles: Record<string, Profile>
}

/** Where a setting came from, strongest first: a flag, then the environment, then the file. */
export type Source = 'flag' | 'env' | 'file' | 'default'

export interface Setting {
  value: string
  source: Source
}

export interface Settings {
  profile: string
  baseUrl: Setting
  apiKey: Setting | undefined
}

/** The XDG base directory `name` (`XDG_CONFIG_HOME` …); relative values are ignored, as the spec says. */
export function xdgDir(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = env[name]
  return value && isAbsolute(value) ? value : join(env.HOME || homedir(), fallback)
}

export function configPath(env: NodeJS.ProcessEnv): string {
  return join(xdgDir(env, 'XDG_CONFIG_HOME', '.config'), 'qrctl', 'config.json')
}

function isProfile(value: unknown): value is Profile {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const p = value as Record<string, unknown>
  return ['apiKey', 'baseUrl'].every((key) => p[key] === undefined || typeof p[key] === 'string')
}

export async function readConfig(path: string): Promise<ConfigFile> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} }
    throw error
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new CliError(`The config file ${path} is not valid JSON: ${(error as Error).message}`, {
      hint: 'Fix it, or delete it and run `qrctl login` again.',
    })
  }
  const profiles = (parsed as { profiles?: unknown } | null)?.profiles
  if (typeof profiles !== 'object' || profiles === null || !Object.values(profiles).every(isProfile)) {
    throw new CliError(`The config file ${path} does not hold { "profiles": { "<name>": { … } } }`, {
      hint: 'Fix it, or delete it and run `qrctl login` again.',
    })
  }
  return { profiles: profiles as Record<string, Profile> }
}

/**
 * Writes the file so that only its owner can read it (it holds API keys): the directory 0700,
 * the file 0600, replaced atomically so a crash never leaves half a file. chmod runs after
 * each step because a umask or an older file may have left wider modes.
 */
export async function writeConfig(path: string, config: ConfigFile): Promise<void> {
  const dir = dirname(path)
  await mkdir(dir, { recursive: true, mode: 0o700 })
  await chmod(dir, 0o700)
  const temp = `${path}.${process.pid}.tmp`
  await writeFile(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 })
  await chmod(temp, 0o600)
  await rename(temp, path)
}

export interface SettingInputs {
  profile: string
  flags: { baseUrl?: string | undefined }
  env: NodeJS.ProcessEnv
  file: ConfigFile
}

/** Flag over environment over file; the API key never comes from a flag (STYLE: secrets from config or stdin). */
export function resolveSettings({ profile, flags, env, file }: SettingInputs): Settings {
  const stored = file.profiles[profile] ?? {}
  const baseUrl: Setting = flags.baseUrl
    ? { value: flags.baseUrl, source: 'flag' }
    : env.QRCTL_BASE_URL
      ? { value: env.QRCTL_BASE_URL, source: 'env' }
      : stored.baseUrl
        ? { value: stored.baseUrl, source: 'file' }
        : { value: DEFAULT_BASE_URL, source: 'default' }
  const apiKey: Setting | undefined = env.QRCTL_API_KEY
    ? { value: env.QRCTL_API_KEY, source: 'env' }
    : stored.apiKey
      ? { value: stored.apiKey, source: 'file' }
      : undefined
  return { profile, baseUrl: { ...baseUrl, value: normalizeBaseUrl(baseUrl.value) }, apiKey }
}

/**
 * A server root such as `https://qr.example.com`, by the SDK's one rule (`normalizeBaseUrl`:
 * http(s), no query, trailing `/` and `/api/v1` dropped), its refusals as CLI errors.
 */
export function normalizeBaseUrl(value: string): string {
  try {
    return sdkBaseUrl(value)
  } catch (error) {
    if (!(error instanceof BaseUrlError)) throw error
    throw new CliError(error.message, { hint: 'Use the server root, e.g. https://qr.example.com' })
  }
}

/** `qrk_abcd…wxyz`: enough to recognise a key, never enough to use it. Same shape as `qrctl key list`. */
export function maskKey(key: string): string {
  if (key.length <= 12) return '****'
  return `${key.slice(0, 8)}…${key.slice(-4)}`
}
