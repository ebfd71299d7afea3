import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from '../support/server.js'

const exec = promisify(execFile)
const root = fileURLToPath(new URL('../..', import.meta.url))
const tsc = join(root, 'node_modules', '.bin', 'tsc')
const work = mkdtempSync(join(tmpdir(), 'qrctl-pack-'))
const tarballs = join(work, 'tarballs')
const consumer = join(work, 'consumer')

let server: TestServer

async function sh(command: string, args: string[], cwd: string) {
  return exec(command, args, { cwd, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 })
}

/** What a customer writes: only the published entry point, typed from the tarball's .d.ts. */
function consumerSource(apiKey: string, baseUrl: string): string {
  return `import { Qrctl, QrctlNotFoundError, QrctlValidationError, type QrCode } from '@qrctl/sdk'

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
console.log(
  JSON.stringify({
    type: code.type,
    shortCode: code.shortCode?.length,
    total: page.total,
    pngBytes: png.byteLength > 100,
    notFound: missing instanceof QrctlNotFoundError,
    invalidPaths: invalid instanceof QrctlValidationError ? invalid.issues.map((issue) => issue.path) : null,
    remaining: typeof qrctl.lastRateLimit?.remaining,
  }),
)
await qrctl.close()
`
}

beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server?.close()
  rmSync(work, { recursive: true, force: true })
})

describe('the packed SDK', () => {
  it('installs from its tarball with the contract, type-checks and runs in an empty project', {
    timeout: 300_000,
  }, async () => {
    await sh('npm', ['run', 'build', '-w', '@qrctl/contract'], root)
    mkdirSync(tarballs, { recursive: true })
    await sh(
      'npm',
      ['pack', '-w', '@qrctl/contract', '-w', '@qrctl/sdk', '--pack-destination', tarballs],
      root,
    )
    const packed = readdirSync(tarballs).sort()
    expect(packed).toEqual(['qrctl-contract-1.0.0.tgz', 'qrctl-sdk-1.0.0.tgz'])

    const { stdout: listing } = await sh('tar', ['-tzf', join(tarballs, 'qrctl-sdk-1.0.0.tgz')], work)
    expect(listing).toContain('package/dist/index.js')
    expect(listing).toContain('package/dist/index.d.ts')
    expect(listing).toContain('package/README.md')
    expect(listing).not.toMatch(/\.test\.(js|ts)/)

    mkdirSync(consumer, { recursive: true })
    writeFileSync(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    )
    await sh(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        ...packed.map((file) => join(tarballs, file)),
      ],
      consumer,
    )
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
    await sh(tsc, ['-p', 'tsconfig.json'], consumer)

    const { stdout } = await sh('node', ['index.js'], consumer)
    expect(JSON.parse(stdout)).toEqual({
      type: 'dynamic',
      shortCode: 7,
      total: 1,
      pngBytes: true,
      notFound: true,
      invalidPaths: ['content'],
      remaining: 'number',
    })
  })
})
