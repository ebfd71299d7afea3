import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiEnv, buildCli, type Home, tempHome } from '../cli/support/cli.js'
import { startServer, type TestServer } from '../support/server.js'

/*
 * As a new user would (issue #13): the SDK and the CLI packed into tarballs, installed in an
 * empty folder outside the clone (the SDK into a project, the CLI with `npm install -g` into a
 * private prefix), then used against a live server. Third-party dependencies come from the
 * registry (or npm's cache), exactly as for a customer.
 */

const exec = promisify(execFile)
const root = fileURLToPath(new URL('../..', import.meta.url))
const tsc = join(root, 'node_modules', '.bin', 'tsc')
const work = mkdtempSync(join(tmpdir(), 'qrctl-pack-'))
const tarballs = join(work, 'tarballs')
const consumer = join(work, 'consumer')
const prefix = join(work, 'global')
const NPM_INSTALL = ['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error']
const PUBLISHABLE = ['contract', 'render', 'sdk', 'cli', 'server']

let server: TestServer
let home: Home

async function sh(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  return exec(command, args, {
    cwd,
    timeout: 240_000,
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, ...env },
  })
}

const tarball = (name: string) => join(tarballs, name)

/** What a customer writes: only the published entry point, typed from the tarball's .d.ts. */
function consumerSource(apiKey: string, baseUrl: string): string {
  return `import { Qrctl, QrctlApiError, QrctlNotFoundError, QrctlValidationError, type QrCode } from '@qrctl/sdk'

const qrctl = new Qrctl({ apiKey: '${apiKey}', baseUrl: '${baseUrl}' })
const code: QrCode = await qrctl.qrCodes.create({
  name: 'Packed',
  contentType: 'url',
  content: 'https://example.com/packed',
  type: 'dynamic',
})
const page = await qrctl.qrCodes.list({ limit: 1 })
const png = await qrctl.qrCodes.image(code.id, { format: 'png', size: 128 })
const missing = await qrctl.qrCodes.get('00000000-0000-4000-8000-000000000000').catch((error: unknown) => error)
const invalid = await qrctl.qrCodes
  .create({ name: 'x', contentType: 'url', content: 'nope' })
  .catch((error: unknown) => error)
// The error code is the contract's union: a typo here would not compile.
const notFoundCode: 'not_found' | undefined =
  missing instanceof QrctlApiError && missing.code === 'not_found' ? missing.code : undefined
console.log(
  JSON.stringify({
    type: code.type,
    shortCode: code.shortCode?.length,
    total: page.total,
    pngBytes: png.byteLength > 100,
    notFound: missing instanceof QrctlNotFoundError,
    notFoundCode,
    invalidPaths: invalid instanceof QrctlValidationError ? invalid.issues.map((issue) => issue.path) : null,
    remaining: typeof qrctl.lastRateLimit?.remaining,
  }),
)
await qrctl.close()
`
}

beforeAll(async () => {
  // Under `npm test` turbo has built every package already; run alone, this builds them.
  buildCli()
  server = await startServer()
  home = tempHome()
}, 180_000)
afterAll(async () => {
  await server?.close()
  home?.cleanup()
  rmSync(work, { recursive: true, force: true })
})

describe('the packed SDK and CLI, installed as a new user would', () => {
  it('builds every publishable package before packing it (prepack)', () => {
    for (const dir of PUBLISHABLE) {
      const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'))
      expect(manifest.scripts?.prepack, `${dir}/package.json`).toBe('npm run build')
      expect(manifest.private, `${dir}/package.json`).toBeUndefined()
      expect(manifest.license, `${dir}/package.json`).toBe('MIT')
    }
  })

  it('installs from tarballs outside the clone: a strict TypeScript program on the SDK runs, and `qrctl create --type dynamic` works', {
    timeout: 300_000,
  }, async () => {
    mkdirSync(tarballs, { recursive: true })
    // Built above (buildCli), so the prepack build is skipped here; `npm pack -w …` alone builds first.
    await sh(
      'npm',
      [
        'pack',
        '--ignore-scripts',
        '-w',
        '@qrctl/contract',
        '-w',
        '@qrctl/render',
        '-w',
        '@qrctl/sdk',
        '-w',
        'qrctl',
        '--pack-destination',
        tarballs,
      ],
      root,
    )
    const packed = readdirSync(tarballs).sort()
    expect(packed).toEqual([
      'qrctl-1.0.0.tgz',
      'qrctl-contract-1.0.0.tgz',
      'qrctl-render-1.0.0.tgz',
      'qrctl-sdk-1.0.0.tgz',
    ])

    const { stdout: listing } = await sh('tar', ['-tzf', tarball('qrctl-sdk-1.0.0.tgz')], work)
    expect(listing).toContain('package/dist/index.js')
    expect(listing).toContain('package/dist/index.d.ts')
    expect(listing).toContain('package/README.md')
    expect(listing).not.toMatch(/\.test\.(js|ts)/)
    const { stdout: contractListing } = await sh('tar', ['-tzf', tarball('qrctl-contract-1.0.0.tgz')], work)
    expect(contractListing).toContain('package/openapi.json')
    expect(contractListing).not.toContain('package/dist/openapi.js')

    mkdirSync(consumer, { recursive: true })
    writeFileSync(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    )
    // The SDK needs the contract's tarball in the same command (it is not on the registry yet);
    // the CLI goes into a prefix of its own, as `npm install -g` would put it on PATH.
    await Promise.all([
      sh(
        'npm',
        ['install', ...NPM_INSTALL, tarball('qrctl-contract-1.0.0.tgz'), tarball('qrctl-sdk-1.0.0.tgz')],
        consumer,
      ),
      sh('npm', ['install', '-g', '--prefix', prefix, ...NPM_INSTALL, ...packed.map(tarball)], work),
    ])

    // Installing the SDK brings its contract and an HTTP client, nothing that draws images.
    const { stdout: tree } = await sh('npm', ['ls', '--all', '--parseable'], consumer)
    const installed = tree
      .trim()
      .split('\n')
      .slice(1)
      .map((path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
      .sort()
    expect(installed).toEqual(['@qrctl/contract', '@qrctl/sdk', '@ts-rest/core', 'undici', 'zod'])

    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          typeRoots: [join(root, 'node_modules', '@types')],
          types: ['node'],
        },
        files: ['index.ts'],
      }),
    )
    writeFileSync(join(consumer, 'index.ts'), consumerSource(server.apiKey, server.baseUrl))
    // The CLI works in an account of its own, so the SDK program's list sees its one code only.
    const cliAccount = await server.createAccount()
    const [, cli] = await Promise.all([
      sh(tsc, ['-p', 'tsconfig.json'], consumer),
      sh(
        join(prefix, 'bin', 'qrctl'),
        [
          'create',
          '--type',
          'dynamic',
          '--name',
          'From the installed CLI',
          '--content',
          'https://example.com/cli',
          '--json',
        ],
        work,
        apiEnv(home, server, cliAccount.apiKey),
      ),
    ])

    const { stdout } = await sh('node', ['index.js'], consumer)
    expect(JSON.parse(stdout)).toEqual({
      type: 'dynamic',
      shortCode: 7,
      total: 1,
      pngBytes: true,
      notFound: true,
      notFoundCode: 'not_found',
      invalidPaths: ['content'],
      remaining: 'number',
    })

    const created = JSON.parse(cli.stdout)
    expect(created).toMatchObject({
      type: 'dynamic',
      name: 'From the installed CLI',
      targetUrl: 'https://example.com/cli',
    })
    expect(created.shortCode).toMatch(/^[0-9A-Za-z]{7}$/)
    expect(created.shortUrl).toMatch(new RegExp(`/r/${created.shortCode}$`))
    const onServer = await server.ctx.db
      .selectFrom('qr_codes')
      .select(['id', 'type', 'account_id'])
      .where('id', '=', created.id)
      .executeTakeFirst()
    expect(onServer).toEqual({ id: created.id, type: 'dynamic', account_id: cliAccount.accountId })
  })
})
