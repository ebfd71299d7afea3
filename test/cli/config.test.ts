import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { Qrctl } from '@qrctl/sdk'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from '../support/server.js'
import { buildCli, type Home, plain, runCli, tempHome } from './support/cli.js'

let server: TestServer
let home: Home
beforeAll(async () => {
  buildCli()
  server = await startServer()
}, 180_000)
afterAll(() => server.close())
beforeEach(() => {
  home = tempHome()
})
afterEach(() => home.cleanup())

/** A base URL where nothing listens: a command that goes there fails to connect. */
const NOWHERE = 'http://127.0.0.1:9'

function readConfig(): { profiles: Record<string, { apiKey?: string; baseUrl?: string }> } {
  return JSON.parse(readFileSync(home.configFile, 'utf8'))
}

function writeConfig(profiles: Record<string, { apiKey?: string; baseUrl?: string }>): void {
  mkdirSync(dirname(home.configFile), { recursive: true })
  writeFileSync(home.configFile, JSON.stringify({ profiles }))
}

async function login(apiKey: string, extra: string[] = []) {
  return runCli(['login', '--with-token', '--base-url', server.baseUrl, ...extra], {
    env: home.env,
    input: `${apiKey}\n`,
  })
}

describe('login', () => {
  it('checks the key with the server and stores it, the file 0600 in a 0700 directory', async () => {
    const res = await login(server.apiKey)
    expect(res.code).toBe(0)
    expect(res.stdout).toBe('')
    expect(res.stderr).toContain(`Logged in to ${server.baseUrl}`)
    expect(res.stderr).not.toContain(server.apiKey)
    expect(readConfig().profiles.default).toEqual({ apiKey: server.apiKey, baseUrl: server.baseUrl })
    expect(statSync(home.configFile).mode & 0o777).toBe(0o600)
    expect(statSync(dirname(home.configFile)).mode & 0o777).toBe(0o700)
    const list = await runCli(['list'], { env: home.env })
    expect(list).toMatchObject({ code: 0, stdout: '', stderr: '' })
  })

  it('tightens the modes of a config file that was world-readable', async () => {
    writeConfig({ other: { baseUrl: NOWHERE } })
    chmodSync(home.configFile, 0o644)
    chmodSync(dirname(home.configFile), 0o755)
    expect((await login(server.apiKey)).code).toBe(0)
    expect(statSync(home.configFile).mode & 0o777).toBe(0o600)
    expect(statSync(dirname(home.configFile)).mode & 0o777).toBe(0o700)
    expect(readConfig().profiles.other).toEqual({ baseUrl: NOWHERE })
  })

  it('refuses a key the server does not know: exit 4, nothing stored', async () => {
    const res = await login(`qrk_${'Z'.repeat(40)}`)
    expect(res.code).toBe(4)
    expect(res.stderr).toContain('The server refused this key')
    expect(() => statSync(home.configFile)).toThrow()
  })

  it('refuses something that is not a key at all, without asking the server', async () => {
    const res = await runCli(['login', '--with-token', '--base-url', NOWHERE], {
      env: home.env,
      input: 'hunter2\n',
    })
    expect(res.code).toBe(4)
    expect(res.stderr).toContain('not a qrctl API key')
  })

  it('needs --with-token when stdin is not a terminal (exit 2)', async () => {
    const res = await runCli(['login', '--base-url', server.baseUrl], { env: home.env })
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('--with-token')
  })

  it('reads the key from a hidden prompt on a terminal, never echoing it', async () => {
    const res = await runCli(['login', '--base-url', server.baseUrl], {
      env: home.env,
      tty: 'both',
      answers: [{ when: /> $/, send: `${server.apiKey}\r` }],
    })
    expect(res.code).toBe(0)
    expect(plain(res.stdout)).toContain('Paste an API key')
    expect(plain(res.stdout)).toContain('Logged in')
    expect(res.stdout).not.toContain(server.apiKey)
    expect(readConfig().profiles.default?.apiKey).toBe(server.apiKey)
  })

  it('accepts a write-only key (it cannot list, but the server knows it) with a warning', async () => {
    const writer = await server.createAccount({ scope: 'write' })
    const res = await login(writer.apiKey)
    expect(res.code).toBe(0)
    expect(res.stderr).toContain('The key works, but')
  })

  it('keeps profiles apart', async () => {
    const other = await server.createAccount()
    expect((await login(server.apiKey)).code).toBe(0)
    expect((await login(other.apiKey, ['--profile', 'other'])).code).toBe(0)
    const config = readConfig()
    expect(config.profiles.default?.apiKey).toBe(server.apiKey)
    expect(config.profiles.other?.apiKey).toBe(other.apiKey)
    const shown = await runCli(['config', 'get', 'apiKey', '--profile', 'other'], { env: home.env })
    expect(shown.stdout).toBe(`${other.apiKey.slice(0, 8)}…${other.apiKey.slice(-4)}\n`)
  })
})

describe('logout', () => {
  it('forgets the key; the next command exits 4 with the login hint', async () => {
    await login(server.apiKey)
    const res = await runCli(['logout'], { env: home.env })
    expect(res.code).toBe(0)
    expect(readConfig().profiles.default).toEqual({ baseUrl: server.baseUrl })
    const list = await runCli(['list'], { env: home.env })
    expect(list.code).toBe(4)
    expect(list.stderr).toContain('qrctl login')
  })

  it('says so on a terminal', async () => {
    await login(server.apiKey)
    const res = await runCli(['logout'], { env: home.env, tty: 'both' })
    expect(res.code).toBe(0)
    expect(plain(res.stdout)).toContain("✓ Logged out (profile 'default')")
  })

  it('is a no-op when not logged in', async () => {
    const res = await runCli(['logout'], { env: home.env })
    expect(res.code).toBe(0)
    expect(res.stderr).toContain('Not logged in')
  })
})

describe('precedence: flag over environment over file', () => {
  it('takes the base URL from --base-url, then QRCTL_BASE_URL, then the profile', async () => {
    writeConfig({ default: { apiKey: server.apiKey, baseUrl: NOWHERE } })
    const fromFile = await runCli(['list'], { env: home.env })
    expect(fromFile.code).toBe(1)
    expect(fromFile.stderr).toContain('Could not reach http://127.0.0.1:9')

    const fromEnv = await runCli(['list'], { env: { ...home.env, QRCTL_BASE_URL: server.baseUrl } })
    expect(fromEnv.code).toBe(0)

    const fromFlag = await runCli(['list', '--base-url', server.baseUrl], {
      env: { ...home.env, QRCTL_BASE_URL: NOWHERE },
    })
    expect(fromFlag.code).toBe(0)
  })

  it('takes the API key from QRCTL_API_KEY over the profile', async () => {
    const other = await server.createAccount()
    const sdk = new Qrctl({ apiKey: other.apiKey, baseUrl: server.baseUrl })
    const code = await sdk.qrCodes.create({ name: 'env account', contentType: 'text', content: 'hi' })
    await sdk.close()
    writeConfig({ default: { apiKey: server.apiKey, baseUrl: server.baseUrl } })
    const res = await runCli(['list'], { env: { ...home.env, QRCTL_API_KEY: other.apiKey } })
    expect(res.code).toBe(0)
    expect(res.stdout.split('\t')[0]).toBe(code.id)
  })

  it('says where each setting comes from in `config list`, the key masked', async () => {
    writeConfig({ default: { apiKey: server.apiKey, baseUrl: NOWHERE } })
    const env = { ...home.env, QRCTL_BASE_URL: 'http://env.example' }
    const res = await runCli(['config', 'list', '--base-url', 'http://flag.example'], { env })
    expect(res.code).toBe(0)
    expect(res.stdout).toContain('baseUrl\thttp://flag.example\t--base-url\n')
    expect(res.stdout).toContain(
      `apiKey\t${server.apiKey.slice(0, 8)}…${server.apiKey.slice(-4)}\tconfig file\n`,
    )
    expect(res.stdout).not.toContain(server.apiKey)

    const json = await runCli(['config', 'list', '--json'], { env: { ...env, QRCTL_API_KEY: server.apiKey } })
    const rows = JSON.parse(json.stdout) as { key: string; value: string; source: string }[]
    expect(rows.find((r) => r.key === 'baseUrl')).toEqual({
      key: 'baseUrl',
      value: 'http://env.example',
      source: 'QRCTL_BASE_URL',
    })
    expect(rows.find((r) => r.key === 'apiKey')?.source).toBe('QRCTL_API_KEY')
    expect(json.stdout).not.toContain(server.apiKey)
  })

  it('shows a table on a terminal, with colour only there', async () => {
    writeConfig({ default: { apiKey: server.apiKey, baseUrl: server.baseUrl } })
    const res = await runCli(['config', 'list'], { env: home.env, tty: 'stdout' })
    expect(plain(res.stdout)).toMatch(/SETTING +VALUE +FROM/)
    expect(res.stdout).toContain('\u001b[')
    expect(res.stdout).not.toContain(server.apiKey)
    const noColor = await runCli(['config', 'list'], { env: { ...home.env, NO_COLOR: '1' }, tty: 'stdout' })
    expect(noColor.stdout).toMatch(/SETTING +VALUE +FROM/)
    expect(noColor.stdout).not.toContain('\u001b[')
  })
})

describe('config set and get', () => {
  it('stores the base URL in the profile, without /api/v1 or a trailing slash', async () => {
    const res = await runCli(['config', 'set', 'base-url', `${server.baseUrl}/api/v1/`], { env: home.env })
    expect(res.code).toBe(0)
    expect(readConfig().profiles.default).toEqual({ baseUrl: server.baseUrl })
    expect(statSync(home.configFile).mode & 0o777).toBe(0o600)
    const get = await runCli(['config', 'get', 'baseUrl'], { env: home.env })
    expect(get).toMatchObject({ code: 0, stdout: `${server.baseUrl}\n` })
  })

  it('exits 1 for a setting that is not set, 2 for one that does not exist', async () => {
    expect((await runCli(['config', 'get', 'apiKey'], { env: home.env })).code).toBe(1)
    expect((await runCli(['config', 'get', 'colour'], { env: home.env })).code).toBe(2)
  })

  it('reports a config file it cannot read as an error (exit 1), not a crash', async () => {
    mkdirSync(dirname(home.configFile), { recursive: true })
    writeFileSync(home.configFile, '{ not json')
    const res = await runCli(['list'], { env: home.env })
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('is not valid JSON')
  })
})

describe('authentication errors', () => {
  it('exit 4 with the API message, request id and the login hint for a revoked key', async () => {
    const account = await server.createAccount()
    const sdk = new Qrctl({ apiKey: account.apiKey, baseUrl: server.baseUrl })
    const spare = await sdk.apiKeys.create({ name: 'doomed' })
    await sdk.apiKeys.revoke(spare.id)
    await sdk.close()
    const res = await runCli(['list'], {
      env: { ...home.env, QRCTL_BASE_URL: server.baseUrl, QRCTL_API_KEY: spare.secret },
    })
    expect(res.code).toBe(4)
    expect(res.stdout).toBe('')
    expect(res.stderr).toMatch(/HTTP 401 unauthorized, request id \S+\)/)
    expect(res.stderr).toContain('qrctl login')
  })
})
