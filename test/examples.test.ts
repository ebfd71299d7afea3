import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Qrctl } from '@qrctl/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './support/server.js'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'qrctl-examples-'))

let server: TestServer

beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server?.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Runs examples/<name>.ts from source, as the README says, with a fresh account's key. */
async function runExample(name: string, args: string[] = [], env: Record<string, string> = {}) {
  const account = env.QRCTL_API_KEY ? undefined : await server.createAccount()
  return run('node', ['--import', 'tsx', '--conditions=source', `examples/${name}.ts`, ...args], {
    cwd: root,
    env: {
      ...process.env,
      QRCTL_BASE_URL: server.baseUrl,
      ...(account ? { QRCTL_API_KEY: account.apiKey } : {}),
      ...env,
    },
    timeout: 60_000,
  })
}

describe('examples against a live server', () => {
  it('dynamic-retarget.ts creates a dynamic code, saves its PNG and retargets it', async () => {
    const { apiKey } = await server.createAccount()
    const output = join(dir, 'menu.png')
    const { stdout } = await runExample('dynamic-retarget', [], {
      QRCTL_API_KEY: apiKey,
      QRCTL_OUTPUT: output,
    })
    expect(stdout).toMatch(
      /^Created Table tent: lunch menu: http:\/\/127\.0\.0\.1:\d+\/r\/\w{7} -> https:\/\/example\.com\/menu\/lunch$/m,
    )
    expect(stdout).toMatch(/-> https:\/\/example\.com\/menu\/dinner$/m)
    expect(readFileSync(output).subarray(1, 4).toString()).toBe('PNG')
    const qrctl = new Qrctl({ apiKey, baseUrl: server.baseUrl })
    const { data } = await qrctl.qrCodes.list()
    expect(data.map((code) => code.targetUrl)).toEqual(['https://example.com/menu/dinner'])
  })

  it('csv-create-many.ts creates the valid rows of the CSV and names the broken one', async () => {
    const { stdout, stderr } = await runExample('csv-create-many', ['examples/codes.csv'])
    expect(stdout).toContain('Created 5 of 6 codes.')
    expect(stdout).toMatch(/^ {2}row 6: codes\[5\]\.content: /m)
    expect(stdout).toMatch(/^ {2}Spring flyer: http:\/\/127\.0\.0\.1:\d+\/r\/\w{7}$/m)
    expect(stderr).toContain('6/6 sent, 5 created, 1 failed')
  })

  it('analytics-report.ts prints a 30-day report of the newest dynamic code', async () => {
    const { apiKey } = await server.createAccount()
    const qrctl = new Qrctl({ apiKey, baseUrl: server.baseUrl })
    await qrctl.qrCodes.create({
      name: 'Poster',
      contentType: 'url',
      content: 'https://example.com/p',
      type: 'dynamic',
    })
    const { stdout } = await runExample('analytics-report', [], { QRCTL_API_KEY: apiKey })
    expect(stdout).toMatch(/^Scans of "Poster" \(http:\/\/127\.0\.0\.1:\d+\/r\/\w{7}\), last 30 days$/m)
    expect(stdout).toMatch(/^Total scans: +0$/m)
    expect(stdout.match(/^ {2}\d{4}-\d{2}-\d{2} +0 *$/gm)).toHaveLength(30)
  })

  it('showcase.ts creates a landing page and shows that a taken slug is a conflict', async () => {
    const { stdout } = await runExample('showcase')
    expect(stdout).toMatch(
      /^Showcase "Corner Bakery" is live at http:\/\/127\.0\.0\.1:\d+\/s\/corner-bakery[\w-]*$/m,
    )
    expect(stdout).toMatch(/^Slug "corner-bakery[\w-]*" is taken, as expected: /m)
  })
})
