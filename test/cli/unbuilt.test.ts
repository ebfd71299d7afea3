import { execFile } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT } from './support/cli.js'

const exec = promisify(execFile)
const work = mkdtempSync(join(tmpdir(), 'qrctl-unbuilt-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** The committed bin shim, copied into a package folder of its own with `dist` as given. */
function packageWith(shim: string, dist: Record<string, string> | undefined): string {
  const dir = mkdtempSync(join(work, 'pkg-'))
  mkdirSync(join(dir, 'bin'))
  copyFileSync(join(ROOT, shim), join(dir, 'bin', 'shim.js'))
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
  if (dist) {
    mkdirSync(join(dir, 'dist'))
    for (const [file, text] of Object.entries(dist)) writeFileSync(join(dir, 'dist', file), text)
  }
  return join(dir, 'bin', 'shim.js')
}

async function run(file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [file, '--help'])
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

// Issue #13: a checkout that is not built says so in one line, never with a stack trace.
describe.each([
  ['cli/bin/qrctl.js', 'qrctl is not built: run `npm run build -w qrctl`'],
  ['server/bin/qrctl-server.js', 'qrctl-server is not built: run `npm run build -w @qrctl/server`'],
])('%s in a tree that is not built', (shim, hint) => {
  it('says what to run, in one line, when its own dist/ is missing', async () => {
    const res = await run(packageWith(shim, undefined))
    expect(res.code).toBe(1)
    expect(res.stdout).toBe('')
    expect(res.stderr.trim().split('\n')).toHaveLength(1)
    expect(res.stderr).toContain(hint)
  })

  it('says the same when a workspace package it imports was not built', async () => {
    const res = await run(packageWith(shim, { 'main.js': "import '../../contract/dist/index.js'\n" }))
    expect(res.code).toBe(1)
    expect(res.stderr.trim().split('\n')).toHaveLength(1)
    expect(res.stderr).toContain(hint)
  })

  it('lets any other failure through with its own message', async () => {
    const res = await run(packageWith(shim, { 'main.js': "throw new Error('boom from main')\n" }))
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('boom from main')
    expect(res.stderr).not.toContain('is not built')
  })

  it('runs the build when there is one', async () => {
    const res = await run(packageWith(shim, { 'main.js': "console.log('built', process.argv.at(-1))\n" }))
    expect(res).toEqual({ code: 0, stdout: 'built --help\n', stderr: '' })
  })
})
