import { request as httpRequest } from 'node:http'
import { describe, expect, it } from 'vitest'
import { api } from '../api/helpers.js'
import { waitFor } from '../support/faults.js'
import {
  databasePerTest,
  runServerCommand,
  type ServerProcess,
  startServerProcess,
} from '../support/process.js'
import { type Dialect, dialects } from '../support/server.js'
import { csrfTokenOf, sessionCookieOf } from './session-helpers.js'

const KEY = /qrk_[0-9A-Za-z]{40}/g
const LINK = /http:\/\/localhost:\d+\/app\/login\?token=[A-Za-z0-9_-]{43}/g

/** The link's path and query, to open on the loopback address the test reaches the server at. */
const pathOf = (link: string) => {
  const url = new URL(link)
  return `${url.pathname}${url.search}`
}

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** One request on a connection of its own, so that under WORKERS=2 successive requests reach both workers. */
function send(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers, agent: false })
    req.on('error', reject)
    req.on('response', (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        body += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.end()
  })
}

/** The pids that wrote a request log line, by request id. */
function servedBy(server: ServerProcess, requestIds: string[]): Set<number> {
  const pids = new Set<number>()
  for (const line of server.stdout().split('\n')) {
    if (!line.startsWith('{')) continue
    const entry = JSON.parse(line) as { msg?: string; requestId?: string; pid?: number }
    if (entry.msg === 'request' && entry.requestId && requestIds.includes(entry.requestId))
      pids.add(entry.pid as number)
  }
  return pids
}

describe.each(dialects())(
  'dashboard sign-in links from the qrctl-server process on %s',
  (dialect: Dialect) => {
    let _dir: string
    let env: Record<string, string>
    databasePerTest(dialect, 'qrctl-session-', (d, e) => {
      _dir = d
      env = e
    })

    it('prints a one-time sign-in link beside the first key on stderr, never in the log stream', async () => {
      const server = await startServerProcess(env)
      try {
        const links = server.stderr().match(LINK) ?? []
        expect(links).toHaveLength(1)
        const link = links[0] as string
        // On PUBLIC_BASE_URL, which defaults to http://localhost:PORT.
        expect(new URL(link).port).toBe(new URL(server.url).port)
        expect(server.stdout()).not.toContain(new URL(link).searchParams.get('token'))

        const path = pathOf(link)
        const first = await send(`${server.url}${path}`)
        expect(first.status).toBe(303)
        const cookie = sessionCookieOf({
          status: first.status,
          headers: new Headers(),
          text: '',
          setCookies: (first.headers['set-cookie'] as string[] | undefined) ?? [],
        }) as string
        const app = await send(`${server.url}/app`, { cookie })
        expect(app.status).toBe(200)
        const csrfToken = csrfTokenOf(app.body) as string
        const listed = await send(`${server.url}/api/v1/qr-codes`, { cookie, 'x-csrf-token': csrfToken })
        expect(listed.status).toBe(200)
        // The session id and the token are in no log line either.
        expect(server.stdout()).not.toContain(cookie.split('=')[1])
        expect(server.stdout()).not.toContain(csrfToken)

        expect((await send(`${server.url}${path}`)).status).toBe(401)
        expect((await server.stop('SIGTERM')).code).toBe(0)

        // A second start over the same database prints neither key nor link.
        const again = await startServerProcess(env)
        expect(again.stderr()).not.toMatch(KEY)
        expect(again.stderr()).not.toMatch(LINK)
        expect((await again.stop('SIGTERM')).code).toBe(0)
      } finally {
        if (server.child.exitCode === null) await server.stop('SIGKILL')
      }
    }, 120_000)

    it('prints a link with admin login-link --account ID, as text or --json; refuses an unknown account', async () => {
      const base = { ...env, PUBLIC_BASE_URL: 'https://qr.example.test' }
      const created = await runServerCommand(['admin', 'create-account', '--name', 'Acme', '--json'], base)
      expect(created.code).toBe(0)
      const { accountId } = JSON.parse(created.stdout) as { accountId: string }

      const text = await runServerCommand(['admin', 'login-link', '--account', accountId], base)
      expect(text.code).toBe(0)
      expect(text.stdout).toMatch(/^Sign-in link for account [0-9a-f-]{36} \(works once, until .+\):\n/)
      expect(text.stdout).toMatch(/\nhttps:\/\/qr\.example\.test\/app\/login\?token=[A-Za-z0-9_-]{43}\n$/)

      const json = await runServerCommand(['admin', 'login-link', '--account', accountId, '--json'], base)
      expect(json.code).toBe(0)
      const parsed = JSON.parse(json.stdout) as { accountId: string; url: string; expiresAt: string }
      expect(parsed.accountId).toBe(accountId)
      expect(parsed.url).toMatch(/^https:\/\/qr\.example\.test\/app\/login\?token=[A-Za-z0-9_-]{43}$/)
      const minutes = (Date.parse(parsed.expiresAt) - Date.now()) / 60_000
      expect(minutes).toBeGreaterThan(13)
      expect(minutes).toBeLessThanOrEqual(15)

      const unknown = await runServerCommand(
        ['admin', 'login-link', '--account', '00000000-0000-4000-8000-000000000000'],
        base,
      )
      expect(unknown.code).toBe(1)
      expect(unknown.stderr).toMatch(/No account with id/)
      const missing = await runServerCommand(['admin', 'login-link'], base)
      expect(missing.code).toBe(2)
      expect(missing.stderr).toMatch(/--account is required/)
      expect(missing.stderr).toMatch(/admin login-link --account ID/)
    }, 120_000)

    it('under WORKERS=2 prints one link, and a session opened on one worker works on both', async () => {
      const server = await startServerProcess({ ...env, WORKERS: '2' })
      try {
        const links = server.stderr().match(LINK) ?? []
        expect(links).toHaveLength(1)
        expect(new Set(server.stderr().match(KEY)).size).toBe(1)
        const login = await send(`${server.url}${pathOf(links[0] as string)}`)
        expect(login.status).toBe(303)
        const cookie = ((login.headers['set-cookie'] as string[])[0] as string).split(';')[0] as string
        const app = await send(`${server.url}/app`, { cookie })
        const csrfToken = csrfTokenOf(app.body) as string
        const ids: string[] = []
        for (let i = 0; i < 8; i++) {
          const res = await send(`${server.url}/api/v1/qr-codes`, { cookie, 'x-csrf-token': csrfToken })
          expect(res.status).toBe(200)
          ids.push(res.headers['x-request-id'] as string)
        }
        // Each worker logged some of them (the log lines arrive through the primary's pipe).
        expect(await waitFor(async () => servedBy(server, ids).size === 2, 10_000)).toBe(true)
        // Signing out on one worker ends the session on both.
        const out = await new Promise<number>((resolve, reject) => {
          const req = httpRequest(`${server.url}/app/logout`, {
            method: 'POST',
            headers: { cookie, 'x-csrf-token': csrfToken },
            agent: false,
          })
          req.on('error', reject)
          req.on('response', (res) => {
            res.resume()
            resolve(res.statusCode ?? 0)
          })
          req.end()
        })
        expect(out).toBe(303)
        for (let i = 0; i < 4; i++)
          expect(
            (await send(`${server.url}/api/v1/qr-codes`, { cookie, 'x-csrf-token': csrfToken })).status,
          ).toBe(401)
        const key = (server.stderr().match(KEY) as string[])[0] as string
        expect((await api({ baseUrl: server.url }, key).get('/qr-codes')).status).toBe(200)
        expect((await server.stop('SIGTERM')).code).toBe(0)
      } finally {
        if (server.child.exitCode === null) await server.stop('SIGKILL')
      }
    }, 120_000)
  },
)
