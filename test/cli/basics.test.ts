import { execFileSync, spawn } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import {
  CONTENT_TYPES,
  TEMPLATES as CONTRACT_TEMPLATES,
  ErrorCorrectionLevel,
  LIST_SORTS,
  Period,
  QrType,
  Scope,
} from '@qrctl/contract'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as choices from '../../cli/src/choices.js'
import { buildCli, MAIN, plain, ROOT, runCli, tempHome } from './support/cli.js'

beforeAll(buildCli, 180_000)

const home = tempHome()
afterAll(() => home.cleanup())

/** Every command, as typed after `qrctl`. */
const COMMANDS = [
  ['login'],
  ['logout'],
  ['create'],
  ['list'],
  ['get'],
  ['update'],
  ['delete'],
  ['restore'],
  ['analytics'],
  ['image'],
  ['render'],
  ['batch'],
  ['showcase'],
  ['showcase', 'list'],
  ['showcase', 'create'],
  ['showcase', 'get'],
  ['showcase', 'update'],
  ['showcase', 'delete'],
  ['key'],
  ['key', 'list'],
  ['key', 'create'],
  ['key', 'revoke'],
  ['key', 'rotate'],
  ['scans'],
  ['scans', 'export'],
  ['config'],
  ['config', 'list'],
  ['config', 'get'],
  ['config', 'set'],
]

describe('the binary', () => {
  it('is the workspace bin with a node shebang, executable', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'cli', 'package.json'), 'utf8'))
    expect(pkg.bin).toEqual({ qrctl: './bin/qrctl.js' })
    expect(readFileSync(join(ROOT, 'cli', 'bin', 'qrctl.js'), 'utf8').split('\n')[0]).toBe(
      '#!/usr/bin/env node',
    )
    expect(statSync(join(ROOT, 'cli', 'bin', 'qrctl.js')).mode & 0o111).not.toBe(0)
    expect(readFileSync(MAIN, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node')
  })

  it('runs as `npx qrctl` from the workspace (the bin link npm install makes)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'cli', 'package.json'), 'utf8'))
    const out = execFileSync('npm', ['exec', '--no', '--', 'qrctl', '--version'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    expect(out).toBe(`${pkg.version}\n`)
  })

  it('prints its version with --version, exit 0', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'cli', 'package.json'), 'utf8'))
    const res = await runCli(['--version'], { env: home.env })
    expect(res).toMatchObject({ code: 0, stdout: `${pkg.version}\n`, stderr: '' })
  })

  it('prints help on stdout when run without arguments, exit 0', async () => {
    const res = await runCli([], { env: home.env })
    expect(res.code).toBe(0)
    expect(res.stdout).toContain('Usage: qrctl')
    expect(res.stdout).toContain('Examples:')
    expect(res.stderr).toBe('')
  })

  it.each(COMMANDS.map((words) => words.join(' ')))(
    'has help with examples: qrctl %s --help',
    async (command) => {
      const words = command.split(' ')
      const res = await runCli([...words, '--help'], { env: home.env })
      expect(res.code).toBe(0)
      expect(res.stdout).toContain(`Usage: qrctl ${words.join(' ')}`)
      expect(res.stdout).toMatch(/Examples:\n {2}\$ qrctl /)
      expect(res.stderr).toBe('')
    },
  )
})

it('stops quietly when the reader of stdout goes away (qrctl … | head)', async () => {
  const child = spawn(process.execPath, [MAIN, 'render', '--content', 'https://example.com'], {
    env: { PATH: process.env.PATH ?? '', ...home.env },
  })
  child.stdout.destroy()
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  expect(stderr).toBe('')
  expect(code).toBe(0)
})

describe('usage errors exit 2, on stderr', () => {
  it.each([
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['create', '--name', 'x'], /required option '-c, --content <content>'/],
    [
      ['create', '--name', 'x', '--content', 'https://a.example', '--type', 'sometimes'],
      /Allowed choices are static, dynamic/,
    ],
    [['create', '--name', 'x', '--content', 'https://a.example', '--margin', '40'], /Must be 0–16/],
    [['get', 'not-an-id'], /Not a QR code id/],
    [['list', '--limit', '0'], /Must be 1–100/],
    [
      ['analytics', '6f1c5e0a-8f5e-4a51-9d55-3c4b0b2a1c11', '--period', '1y'],
      /Allowed choices are 7d, 30d, 90d, all/,
    ],
    [['config', 'set', 'apiKey', 'qrk_x'], /API keys are not taken as arguments/],
  ])('qrctl %j', async (args, message) => {
    const res = await runCli(args, { env: home.env })
    expect(res.code).toBe(2)
    expect(res.stdout).toBe('')
    expect(res.stderr).toMatch(message)
  })
})

describe('usage errors under --json are one JSON object on stderr', () => {
  it.each([
    [['frobnicate', '--json'], "unknown command 'frobnicate'"],
    [['list', '--limit', '0', '--json'], /Must be 1–100/],
    [['--json', 'webhooks', 'create'], /required option '-u, --url <url>'/],
    [['webhooks', '--json'], /subcommand is needed/],
  ])('qrctl %j', async (args, message) => {
    const res = await runCli(args, { env: home.env })
    expect(res.code).toBe(2)
    expect(res.stdout).toBe('')
    const { error } = JSON.parse(res.stderr) as { error: { message: string; exitCode: number } }
    expect(error.exitCode).toBe(2)
    expect(error.message).toMatch(message)
  })

  it('leaves a --json after -- to the command', async () => {
    const res = await runCli(['create', '--name', 'x', '--', '--json'], { env: home.env })
    expect(res.code).toBe(2)
    expect(res.stderr).toMatch(/^error: required option/)
  })
})

it('exits 4 with the `qrctl login` hint when no key is configured', async () => {
  const res = await runCli(['list'], { env: home.env })
  expect(res.code).toBe(4)
  expect(res.stdout).toBe('')
  expect(res.stderr).toContain("Not logged in (profile 'default')")
  expect(res.stderr).toContain('qrctl login')
})

it('offers exactly the contract’s values for every enum flag', () => {
  expect(choices.CONTENT_TYPES).toEqual(CONTENT_TYPES)
  expect(choices.QR_TYPES).toEqual(QrType.options)
  expect(choices.EC_LEVELS).toEqual(ErrorCorrectionLevel.options)
  expect(choices.PERIODS).toEqual(Period.options)
  expect(choices.SCOPES).toEqual(Scope.options)
  expect(choices.TEMPLATES).toEqual(CONTRACT_TEMPLATES)
  expect(choices.SORTS).toEqual(LIST_SORTS)
})

describe('the first output of a network command', () => {
  // A server that accepts connections and never answers: the command waits on the network.
  let blackHole: Server
  const sockets = new Set<Socket>()
  let port = 0
  beforeAll(async () => {
    blackHole = createServer((socket) => {
      sockets.add(socket)
    })
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve))
    port = (blackHole.address() as { port: number }).port
  })
  afterAll(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise<void>((resolve) => blackHole.close(() => resolve()))
  })

  // How soon the first output comes (STYLE: within 100 ms) is a wall-clock figure: it is
  // measured in bench/cli-first-output.ts, not asserted here. This checks what comes first.
  it('shows the spinner on a terminal’s stderr only, never on a pipe', async () => {
    const env = {
      ...home.env,
      QRCTL_BASE_URL: `http://127.0.0.1:${port}`,
      QRCTL_API_KEY: `qrk_${'a'.repeat(40)}`,
    }
    const piped = await runCli(['list'], { env, timeoutMs: 1500 })
    expect(piped.stderr).toBe('')
    const terminal = await runCli(['list'], { env, tty: 'stderr', timeoutMs: 1500 })
    expect(plain(terminal.stderr)).toContain('Fetching codes…')
  })
})
