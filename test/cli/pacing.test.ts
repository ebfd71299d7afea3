import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Qrctl } from '@qrctl/sdk'
import { accounts } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from '../support/server.js'
import { apiEnv, buildCli, type Home, runCli, tempHome } from './support/cli.js'

let server: TestServer
let home: Home

beforeAll(async () => {
  buildCli()
  server = await startServer()
  home = tempHome()
}, 180_000)
afterAll(async () => {
  await server.close()
  home.cleanup()
})

function csv(name: string, rows: number): string {
  const lines = ['name,contentType,content']
  for (let i = 0; i < rows; i++) lines.push(`${name} ${i},url,https://example.com/${name}/${i}`)
  const file = join(home.dir, `${name}.csv`)
  writeFileSync(file, `${lines.join('\n')}\n`)
  return file
}

/** How many codes an account holds, read with a second key of its own (the first one's window is spent). */
async function count(accountId: string): Promise<number> {
  const key = await accounts.createAccountKey(server.ctx, accountId, { name: 'count', scope: 'read' })
  const sdk = new Qrctl({ apiKey: key.secret, baseUrl: server.baseUrl })
  const { total } = await sdk.qrCodes.list({ limit: 1 })
  await sdk.close()
  return total
}

/** Every HTTP answer the CLI logged with --verbose. */
function statuses(stderr: string): number[] {
  return [...stderr.matchAll(/ → (\d{3}) in \d+ ms/g)].map((m) => Number(m[1]))
}

describe.concurrent('pacing on X-RateLimit-Remaining and X-RateLimit-Reset', () => {
  it('waits for the window to reset instead of earning a 429 (4 requests a minute, 6 batches)', async () => {
    const account = await server.createAccount({ rateLimitPerMinute: 4 })
    const file = csv('slow', 600)
    const res = await runCli(['batch', file, '--verbose'], {
      env: apiEnv(home, server, account.apiKey),
      timeoutMs: 170_000,
    })
    expect(res.code, res.stderr).toBe(0)
    expect(statuses(res.stderr)).toEqual([200, 201, 201, 201, 201, 201, 201])
    expect(res.stderr).toMatch(/waiting \d+ s: rate limit of 4 requests per window reached/)
    expect(await count(account.accountId)).toBe(600)
  }, 180_000)

  it('uploads 10,000 rows at the default limit without one failed request', async () => {
    const account = await server.createAccount()
    const file = csv('big', 10_000)
    const res = await runCli(['batch', file, '--verbose'], {
      env: apiEnv(home, server, account.apiKey),
      timeoutMs: 290_000,
    })
    expect(res.code, res.stderr.slice(-2000)).toBe(0)
    const seen = statuses(res.stderr)
    expect(seen).toHaveLength(101)
    expect(seen.filter((s) => s >= 300)).toEqual([])
    expect(res.stderr).toContain('10000 created, 0 failed.')
    expect(await count(account.accountId)).toBe(10_000)
  }, 300_000)
})
