import { readFileSync } from 'node:fs'
import { API_KEY_PATTERN } from '@qrctl/contract'
import { type ApiKey, type QrCode, Qrctl, type Showcase } from '@qrctl/sdk'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from '../support/server.js'
import { apiEnv, buildCli, type Home, plain, runCli, tempHome } from './support/cli.js'

let server: TestServer
let home: Home
let env: Record<string, string>
let apiKey: string
let sdk: Qrctl

beforeAll(async () => {
  buildCli()
  server = await startServer()
}, 180_000)
afterAll(() => server.close())

beforeEach(async () => {
  home = tempHome()
  const account = await server.createAccount()
  apiKey = account.apiKey
  sdk = new Qrctl({ apiKey, baseUrl: server.baseUrl })
  env = apiEnv(home, server, apiKey)
})
afterEach(async () => {
  await sdk.close()
  home.cleanup()
})

const MISSING = '00000000-0000-4000-8000-000000000000'

describe('qrctl key', () => {
  it('create prints the secret once, alone on stdout; list never shows it', async () => {
    const res = await runCli(
      ['key', 'create', '--name', 'CI', '--environment', 'staging', '--scope', 'read'],
      { env },
    )
    expect(res.code).toBe(0)
    const secret = res.stdout.trimEnd()
    expect(secret).toMatch(API_KEY_PATTERN)
    expect(res.stderr).toContain("Created key 'CI' (read, staging")
    expect(res.stderr).toContain('not shown again')
    expect(res.stderr).not.toContain(secret)
    const read = new Qrctl({ apiKey: secret, baseUrl: server.baseUrl })
    expect((await read.qrCodes.list()).total).toBe(0)
    await read.close()

    const list = await runCli(['key', 'list'], { env })
    expect(list.code).toBe(0)
    expect(list.stdout).not.toContain(secret)
    const ci = list.stdout
      .split('\n')
      .find((line) => line.split('\t')[1] === 'CI')
      ?.split('\t')
    expect(ci?.slice(2, 5)).toEqual(['staging', 'read', `${secret.slice(0, 8)}…${secret.slice(-4)}`])
    const json = JSON.parse((await runCli(['key', 'list', '--json'], { env })).stdout) as ApiKey[]
    expect(json).toEqual(await sdk.apiKeys.list())
  })

  it('create --json prints the SDK object, secret included', async () => {
    const res = await runCli(['key', 'create', '--name', 'deploy', '--json'], { env })
    const key = JSON.parse(res.stdout) as ApiKey & { secret: string }
    expect(key).toMatchObject({ name: 'deploy', scope: 'read_write' })
    expect(key.secret).toMatch(API_KEY_PATTERN)
  })

  it('on a terminal: the secret alone on stdout, the reminder on stderr; list as a table', async () => {
    const created = await runCli(['key', 'create', '--name', 'Laptop'], { env, tty: 'stdout' })
    expect(created.code).toBe(0)
    expect(created.stdout.trimEnd()).toMatch(API_KEY_PATTERN)
    expect(created.stderr).toContain("Created key 'Laptop'")
    const res = await runCli(['key', 'list'], { env, tty: 'stdout' })
    expect(plain(res.stdout)).toMatch(/^ID +NAME +ENVIRONMENT +SCOPE +KEY +LAST USED +EXPIRES/)
  })

  it('revoke needs --yes off a terminal; a revoked key exits 4', async () => {
    const spare = await sdk.apiKeys.create({ name: 'spare' })
    expect((await runCli(['key', 'revoke', spare.id], { env })).code).toBe(2)
    const res = await runCli(['key', 'revoke', spare.id, '--yes'], { env })
    expect(res.code).toBe(0)
    expect(res.stderr).toContain(`Revoked key ${spare.id}`)
    const refused = await runCli(['list'], { env: { ...env, QRCTL_API_KEY: spare.secret } })
    expect(refused.code).toBe(4)
  })

  it('rotate prints the new secret once; the old key keeps working for the grace period', async () => {
    const spare = await sdk.apiKeys.create({ name: 'rotating', scope: 'read' })
    const res = await runCli(['key', 'rotate', spare.id, '--grace-period', '3600', '--yes'], { env })
    expect(res.code).toBe(0)
    const secret = res.stdout.trimEnd()
    expect(secret).toMatch(API_KEY_PATTERN)
    expect(secret).not.toBe(spare.secret)
    expect(res.stderr).toContain("Rotated key 'rotating' (read")
    expect((await runCli(['list'], { env: { ...env, QRCTL_API_KEY: secret } })).code).toBe(0)
    expect((await runCli(['list'], { env: { ...env, QRCTL_API_KEY: spare.secret } })).code).toBe(0)
  })

  it('rotating the key the profile stores updates the profile, so the CLI keeps working', async () => {
    const login = await runCli(['login', '--with-token', '--base-url', server.baseUrl], {
      env: home.env,
      input: apiKey,
    })
    expect(login.code).toBe(0)
    const own = (await sdk.apiKeys.list())[0]!
    const res = await runCli(['key', 'rotate', own.id, '--yes'], { env: home.env })
    expect(res.code).toBe(0)
    const secret = res.stdout.trimEnd()
    expect(res.stderr).toContain("Profile 'default' used the old key; it now stores the new one.")
    const config = JSON.parse(readFileSync(home.configFile, 'utf8'))
    expect(config.profiles.default.apiKey).toBe(secret)
    expect((await runCli(['list'], { env: home.env })).code).toBe(0)
  })

  it('a read key cannot manage keys: exit 1 with the scope hint', async () => {
    const reader = await sdk.apiKeys.create({ name: 'reader', scope: 'read' })
    const res = await runCli(['key', 'create', '--name', 'x'], {
      env: { ...env, QRCTL_API_KEY: reader.secret },
    })
    expect(res.code).toBe(1)
    expect(res.stderr).toMatch(/HTTP 403 insufficient_scope/)
    expect(res.stderr).toContain('read_write key')
  })
})

describe('qrctl showcase', () => {
  let code: QrCode
  beforeEach(async () => {
    code = await sdk.qrCodes.create({
      name: 'Menu',
      contentType: 'url',
      content: 'https://example.com/menu',
      type: 'dynamic',
    })
  })

  it('create, get, list, update and delete', async () => {
    const created = await runCli(
      [
        'showcase',
        'create',
        '--code',
        code.id,
        '--title',
        'Spring menu',
        '--template',
        'modern',
        '--primary-color',
        '#c0392b',
        '--json',
      ],
      { env },
    )
    expect(created.code, created.stderr).toBe(0)
    const showcase = JSON.parse(created.stdout) as Showcase
    expect(showcase).toMatchObject({
      qrCodeId: code.id,
      title: 'Spring menu',
      slug: 'spring-menu',
      template: 'modern',
      customColors: { primary: '#c0392b' },
    })
    expect(showcase).toEqual(await sdk.showcases.get(showcase.id))

    const got = await runCli(['showcase', 'get', showcase.id], { env })
    expect(got.stdout.split('\t').slice(0, 4)).toEqual([showcase.id, 'Spring menu', 'spring-menu', 'modern'])
    const detail = await runCli(['showcase', 'get', showcase.id], { env, tty: 'stdout' })
    expect(plain(detail.stdout)).toMatch(new RegExp(`URL +${showcase.url.replace(/[.]/g, '\\.')}`))

    const list = await runCli(['showcase', 'list', '--code', code.id], { env })
    expect(
      list.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t')[0]),
    ).toEqual([showcase.id])

    const updated = await runCli(
      [
        'showcase',
        'update',
        showcase.id,
        '--title',
        'Summer menu',
        '--text-color',
        '#111111',
        '--social',
        'instagram=https://instagram.com/cafe',
        '--cta',
        'Order=https://example.com/order',
        '--no-branding',
        '--inactive',
        '--json',
      ],
      { env },
    )
    expect(updated.code, updated.stderr).toBe(0)
    expect(await sdk.showcases.get(showcase.id)).toMatchObject({
      title: 'Summer menu',
      customColors: { primary: '#c0392b', text: '#111111' },
      socialLinks: [{ platform: 'instagram', url: 'https://instagram.com/cafe' }],
      ctaButtons: [{ label: 'Order', url: 'https://example.com/order' }],
      showBranding: false,
      isActive: false,
    })

    expect((await runCli(['showcase', 'delete', showcase.id], { env })).code).toBe(2)
    const deleted = await runCli(['showcase', 'delete', showcase.id, '--yes'], { env })
    expect(deleted.code).toBe(0)
    await expect(sdk.showcases.get(showcase.id)).rejects.toMatchObject({ status: 404 })
  })

  it('create takes --social and --cta, CTA buttons with tel:, mailto: and sms: links', async () => {
    const res = await runCli(
      [
        'showcase',
        'create',
        '--code',
        code.id,
        '--title',
        'Cafe',
        '--social',
        'instagram=https://instagram.com/cafe',
        '--cta',
        'Call=tel:+4930123456',
        '--cta',
        'Write=mailto:hi@example.com',
        '--cta',
        'Text=sms:+4930123456',
        '--cta',
        'Order=https://example.com/order',
        '--json',
      ],
      { env },
    )
    expect(res.stderr).toBe('')
    expect(res.code).toBe(0)
    const showcase = JSON.parse(res.stdout)
    expect(showcase.socialLinks).toEqual([{ platform: 'instagram', url: 'https://instagram.com/cafe' }])
    expect(showcase.ctaButtons.map((b: { url: string }) => b.url)).toEqual([
      'tel:+4930123456',
      'mailto:hi@example.com',
      'sms:+4930123456',
      'https://example.com/order',
    ])
    expect((await sdk.showcases.get(showcase.id)).ctaButtons).toHaveLength(4)
  })

  it('reports a taken slug as the API does (409, exit 1)', async () => {
    await sdk.showcases.create({ qrCodeId: code.id, title: 'Taken', slug: 'taken-slug' })
    const res = await runCli(
      ['showcase', 'create', '--code', code.id, '--title', 'Again', '--slug', 'taken-slug'],
      { env },
    )
    expect(res.code).toBe(1)
    expect(res.stderr).toMatch(/HTTP 409 conflict/)
  })

  it('exits 1 with not_found for a code of another account', async () => {
    const other = await server.createAccount()
    const otherSdk = new Qrctl({ apiKey: other.apiKey, baseUrl: server.baseUrl })
    const theirs = await otherSdk.qrCodes.create({ name: 'Theirs', contentType: 'text', content: 'x' })
    await otherSdk.close()
    const res = await runCli(['showcase', 'create', '--code', theirs.id, '--title', 'Nope'], { env })
    expect(res.code).toBe(1)
    expect(res.stderr).toMatch(/HTTP 404 not_found/)
    expect((await runCli(['showcase', 'get', MISSING], { env })).code).toBe(1)
  })

  it('lists showcases as a table on a terminal, with a hint when there are none', async () => {
    const none = await runCli(['showcase', 'list'], { env, tty: 'both' })
    expect(none.code).toBe(0)
    expect(plain(none.stdout)).toContain('No showcases found')
    await sdk.showcases.create({ qrCodeId: code.id, title: 'Page' })
    const res = await runCli(['showcase', 'list'], { env, tty: 'stdout' })
    expect(plain(res.stdout)).toMatch(/^ID +TITLE +SLUG +TEMPLATE +ACTIVE +VIEWS/)
    const created = await runCli(['showcase', 'create', '--code', code.id, '--title', 'Second'], {
      env,
      tty: 'both',
    })
    expect(plain(created.stdout)).toMatch(/✓ Created showcase http:\/\/127\.0\.0\.1:\d+\/s\/second/)
  })

  it('lists nothing with exit 0; --all walks every page', async () => {
    expect(await runCli(['showcase', 'list'], { env })).toMatchObject({ code: 0, stdout: '' })
    for (let i = 0; i < 3; i++) await sdk.showcases.create({ qrCodeId: code.id, title: `Page ${i}` })
    const all = JSON.parse(
      (await runCli(['showcase', 'list', '--all', '--limit', '2', '--json'], { env })).stdout,
    ) as Showcase[]
    expect(all.map((s) => s.title).sort()).toEqual(['Page 0', 'Page 1', 'Page 2'])
  })
})
