import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { api, createCode, expectError, sleep, textCode } from '../api/helpers.js'
import { databasePerTest, PROCESS_TESTS, runServerCommand, startServerProcess } from '../support/process.js'
import { type Dialect, dialects } from '../support/server.js'

const KEY = /qrk_[0-9A-Za-z]{40}/g
const CLIENT_IP = '198.51.100.23'

const USAGE = /Usage: qrctl-server <command>/

describe.each(dialects())('the qrctl-server process on %s', PROCESS_TESTS, (dialect: Dialect) => {
  let dir: string
  let env: Record<string, string>
  databasePerTest(dialect, 'qrctl-process-', (d, e) => {
    dir = d
    env = e
  })

  describe('start', () => {
    it('prints one API key on an empty database to stderr, serves with it, and exits 0 on SIGTERM', async () => {
      const server = await startServerProcess(env, 'tsx')
      await sleep(200)
      const keys = new Set(server.stderr().match(KEY))
      expect(keys.size).toBe(1)
      // stdout is the log stream: JSON lines only, and never the key.
      expect(server.stdout()).not.toMatch(KEY)
      const lines = server
        .stdout()
        .split('\n')
        .filter((line) => line.length > 0)
      expect(lines.length).toBeGreaterThan(0)
      for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow()
      const [key] = [...keys] as [string]
      expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok' })
      const client = api({ baseUrl: server.url }, key)
      expect((await client.post('/qr-codes', textCode())).status).toBe(201)
      expect((await client.get('/qr-codes')).body.total).toBe(1)
      const exit = await server.stop('SIGTERM')
      expect(exit).toMatchObject({ code: 0, signal: null })

      const again = await startServerProcess(env)
      await sleep(200)
      expect(again.stdout()).not.toMatch(KEY)
      expect(again.stderr()).not.toMatch(KEY)
      expect((await api({ baseUrl: again.url }, key).get('/qr-codes')).body.total).toBe(1)
      expect((await again.stop('SIGINT')).code).toBe(0)
    }, 90_000)

    it('keeps keys and client addresses out of the log stream', async () => {
      const server = await startServerProcess({ ...env, TRUST_PROXY: 'on' })
      await sleep(200)
      const [key] = server.stderr().match(KEY) as [string]
      const client = api({ baseUrl: server.url }, key)
      const from = { headers: { 'x-forwarded-for': CLIENT_IP } }
      await client.get('/qr-codes', from)
      await client.post('/qr-codes', textCode(), from)
      await client.get(`/qr-codes?apiKey=${key}`, from)
      await client.get(`/qr-codes/${key}`, from)
      await client.get(`/${key}`, { ...from, key: null })
      await client.get('/qr-codes', { ...from, key: `qrk_${'0'.repeat(40)}` })
      await client.get('/qr-codes', { ...from, key: key.slice(0, -1) })
      await client.request('POST', '/qr-codes', {
        raw: '{',
        headers: { ...from.headers, 'content-type': 'application/json' },
      })
      const created = await client.post('/api-keys', { name: 'logged?' }, from)
      const exit = await server.stop()
      expect(exit.code).toBe(0)
      const logLines = exit.stdout.split('\n').filter((line) => line.startsWith('{'))
      expect(logLines.length).toBeGreaterThanOrEqual(7)
      for (const line of logLines) JSON.parse(line)
      const logs = logLines.join('\n')
      expect(logs).toContain('"requestId"')
      expect(logs).toContain('qrk_[redacted]')
      expect(logs).not.toMatch(/qrk_(?!\[redacted\])/)
      expect(logs).not.toContain(key.slice(4, 20))
      expect(logs).not.toContain(created.body.data.secret.slice(4, 20))
      expect(logs).not.toContain(CLIENT_IP)
      expect(logs).not.toContain('127.0.0.1')
      // stderr holds the first key's banner, and nothing else of a key or an address.
      expect(new Set(exit.stderr.match(KEY))).toEqual(new Set([key]))
      expect(exit.stderr).not.toContain(created.body.data.secret.slice(4, 20))
      expect(exit.stderr).not.toContain(CLIENT_IP)
    }, 60_000)

    it('finishes a request in flight before exiting on SIGTERM', async () => {
      const server = await startServerProcess(env)
      await sleep(200)
      const [key] = server.stderr().match(KEY) as [string]
      const client = api({ baseUrl: server.url }, key)
      const code = (await client.post('/qr-codes', textCode({ content: 'in flight' }))).body.data
      const image = fetch(`${server.url}/api/v1/qr-codes/${code.id}/image.png?size=4096`, {
        headers: { authorization: `Bearer ${key}` },
      })
      await sleep(50)
      server.child.kill('SIGTERM')
      const res = await image
      expect(res.status).toBe(200)
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000)
      expect((await server.done).code).toBe(0)
      await expect(fetch(`${server.url}/healthz`)).rejects.toThrow()
    }, 60_000)

    it('answers readyz and metrics from the real process', async () => {
      const server = await startServerProcess(env)
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200)
      expect(await (await fetch(`${server.url}/metrics`)).text()).toContain(
        'qrctl_http_request_duration_seconds',
      )
      expect((await server.stop()).code).toBe(0)
    }, 60_000)
  })

  describe('admin', () => {
    it('creates an account and a scoped key, and set-plan free shuts the key out at once', async () => {
      const account = await runServerCommand(['admin', 'create-account', '--name', 'Acme', '--json'], env)
      expect(account.code).toBe(0)
      const lines = account.stdout.trim().split('\n')
      expect(lines).toHaveLength(1)
      const created = JSON.parse(lines[0] as string)
      expect(Object.keys(created).sort()).toEqual(['accountId', 'apiKey'])
      expect(created.accountId).toMatch(/^[0-9a-f-]{36}$/)
      expect(created.apiKey).toMatch(/^qrk_[0-9A-Za-z]{40}$/)

      const key = await runServerCommand(
        ['admin', 'create-key', '--account', created.accountId, '--scope', 'read', '--json'],
        env,
      )
      expect(key.code).toBe(0)
      const readKey = JSON.parse(key.stdout)
      expect(readKey.accountId).toBe(created.accountId)
      expect(readKey.apiKey).toMatch(/^qrk_[0-9A-Za-z]{40}$/)
      expect(readKey.apiKey).not.toBe(created.apiKey)

      const server = await startServerProcess(env)
      try {
        expect(server.stdout()).not.toMatch(KEY)
        expect(server.stderr()).not.toMatch(KEY)
        const reader = api({ baseUrl: server.url }, readKey.apiKey)
        expect((await reader.get('/qr-codes')).status).toBe(200)
        expectError(await reader.post('/qr-codes', textCode()), 403, 'insufficient_scope')
        // Images are answered from memory ahead of Express: warm that path before the change.
        const code = await createCode(api({ baseUrl: server.url }, created.apiKey))
        const image = `${server.url}/api/v1/qr-codes/${code.id}/image.png`
        for (let i = 0; i < 2; i++) expect((await reader.get(image)).status).toBe(200)

        const free = await runServerCommand(
          ['admin', 'set-plan', '--account', created.accountId, '--plan', 'free'],
          env,
        )
        expect(free.code).toBe(0)
        expect(free.stdout).toMatch(/plan free/)
        expectError(await reader.get('/qr-codes'), 403, 'plan_required')
        expectError(await reader.get(image), 403, 'plan_required')
        expectError(await api({ baseUrl: server.url }, created.apiKey).get('/qr-codes'), 403, 'plan_required')

        const back = [
          'admin',
          'set-plan',
          '--account',
          created.accountId,
          '--plan',
          'pro',
          '--status',
          'past_due',
        ]
        expect((await runServerCommand(back, env)).code).toBe(0)
        expect((await reader.get('/qr-codes')).status).toBe(200)
        const cancel = [
          'admin',
          'set-plan',
          '--account',
          created.accountId,
          '--plan',
          'pro',
          '--status',
          'canceled',
        ]
        expect((await runServerCommand(cancel, env)).code).toBe(0)
        expectError(await reader.get('/qr-codes'), 403, 'plan_required')

        const tier = [
          '--account',
          created.accountId,
          '--plan',
          'pro',
          '--status',
          'active',
          '--rate-limit',
          '2',
        ]
        expect((await runServerCommand(['admin', 'set-plan', ...tier], env)).code).toBe(0)
        const first = await reader.get('/qr-codes')
        expect(first.headers.get('x-ratelimit-limit')).toBe('2')
        expect((await reader.get('/qr-codes')).status).toBe(200)
        expectError(await reader.get('/qr-codes'), 429, 'rate_limited')
      } finally {
        expect((await server.stop()).code).toBe(0)
      }
    }, 120_000)

    it('prints a readable key without --json', async () => {
      const account = await runServerCommand(['admin', 'create-account', '--name', 'Plain'], env)
      expect(account.code).toBe(0)
      expect(account.stdout).toMatch(/Created account "Plain" \(pro\)/)
      expect(account.stdout.match(KEY)).toHaveLength(1)
    }, 60_000)

    it('exits 2 with the usage on stderr for bad arguments', async () => {
      const uuid = '00000000-0000-4000-8000-000000000000'
      const cases = [
        ['admin', 'create-account'],
        ['admin', 'create-account', '--name', 'x', '--plan', 'gold'],
        ['admin', 'create-account', '--name', 'x', '--bogus'],
        ['admin', 'create-key'],
        ['admin', 'create-key', '--account', 'not-a-uuid'],
        ['admin', 'create-key', '--account', uuid, '--scope', 'admin'],
        ['admin', 'set-plan', '--account', uuid],
        ['admin', 'set-plan', '--account', uuid, '--plan', 'pro', '--status', 'x'],
        ['admin', 'set-plan', '--account', uuid, '--plan', 'pro', '--rate-limit', 'fast'],
        ['admin', 'frobnicate'],
        ['admin'],
        ['frobnicate'],
      ]
      const outputs = await Promise.all(cases.map((args) => runServerCommand(args, env)))
      outputs.forEach((out, i) => {
        const what = JSON.stringify(cases[i])
        expect(out.code, what).toBe(2)
        expect(out.stderr, what).toMatch(USAGE)
        expect(out.stdout, what).toBe('')
      })
      // Arguments are checked before any database is opened (or, for SQLite, created).
      if (dialect === 'sqlite') expect(existsSync(join(dir, 'qrctl.db'))).toBe(false)
    }, 120_000)

    it('exits 1 with a message for an unknown account', async () => {
      const out = await runServerCommand(
        ['admin', 'create-key', '--account', '00000000-0000-4000-8000-000000000000'],
        env,
      )
      expect(out.code).toBe(1)
      expect(out.stderr).toMatch(/No account with id 00000000-0000-4000-8000-000000000000/)
      expect(out.stderr).not.toMatch(USAGE)
    }, 60_000)

    it('prints the usage with --help and exits 0', async () => {
      const out = await runServerCommand(['--help'], env)
      expect(out.code).toBe(0)
      expect(out.stdout).toMatch(USAGE)
    }, 60_000)

    it('migrates, then reports the database up to date', async () => {
      const first = await runServerCommand(['migrate'], env)
      expect(first.code).toBe(0)
      expect(first.stdout).toMatch(/^Applied: /)
      const second = await runServerCommand(['migrate'], env)
      expect(second.stdout).toBe('Database is up to date\n')
    }, 60_000)

    it('lets three processes migrate a fresh database at once', async () => {
      for (let round = 0; round < 3; round++) {
        const fresh =
          dialect === 'sqlite' ? { ...env, DATABASE_URL: `file:${join(dir, `race-${round}.db`)}` } : env
        const outputs = await Promise.all([0, 1, 2].map(() => runServerCommand(['migrate'], fresh)))
        for (const out of outputs) expect(out.code, out.stderr).toBe(0)
        expect(outputs.filter((out) => out.stdout.startsWith('Applied: '))).toHaveLength(
          round === 0 || dialect === 'sqlite' ? 1 : 0,
        )
      }
    }, 120_000)
  })
})
