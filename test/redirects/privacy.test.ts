import { createHmac } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { api, dumpDatabase, UNLIMITED } from '../api/helpers.js'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { AGENTS, analytics, createDynamic, PLACES, scanOk } from './scan-helpers.js'

const SECRET = 'a-visitor-secret-for-tests-only'
const ADDRESSES = ['203.0.113.195', PLACES.us.ip, PLACES.de6.ip]

const servers: TestServer[] = []
afterEach(async () => {
  for (const server of servers.splice(0).reverse()) await server.close()
})

describe.each(dialects())('scan privacy on %s', (dialect) => {
  async function scanFromEveryAddress(server: TestServer) {
    const client = api(server, server.apiKey)
    const code = await createDynamic(client)
    for (const ip of ADDRESSES) await scanOk(server, code.shortCode as string, { ip, ua: AGENTS.windows.ua })
    await server.running.scans.flush()
    return { client, code }
  }

  it('stores no client address in any table, and on SQLite not in the database files either', async () => {
    const server = await startServer({ dialect, env: { ...UNLIMITED, TRUST_PROXY: 'on' } })
    servers.push(server)
    await scanFromEveryAddress(server)
    const dump = await dumpDatabase(server)
    expect(dump).toContain('Frankfurt am Main')
    for (const ip of ADDRESSES) expect(dump).not.toContain(ip)
    if (dialect === 'sqlite') {
      const file = server.databaseUrl.slice('file:'.length)
      for (const path of [file, `${file}-wal`].filter((p) => existsSync(p))) {
        const bytes = readFileSync(path).toString('latin1')
        for (const ip of ADDRESSES) expect(bytes).not.toContain(ip)
      }
    }
  })

  it('makes the visitor id HMAC-SHA256(VISITOR_SECRET, address + user agent)', async () => {
    const server = await startServer({
      dialect,
      env: { ...UNLIMITED, TRUST_PROXY: 'on', VISITOR_SECRET: SECRET },
    })
    servers.push(server)
    const { code } = await scanFromEveryAddress(server)
    const rows = await server.ctx.db
      .selectFrom('scans')
      .select('visitor_id')
      .where('qr_code_id', '=', code.id)
      .orderBy('id')
      .execute()
    const expected = ADDRESSES.map((ip) =>
      createHmac('sha256', SECRET).update(`${ip}\n${AGENTS.windows.ua}`).digest('base64url'),
    )
    expect(rows.map((r) => r.visitor_id)).toEqual(expected)
  })

  it('generates a visitor secret once, stores it, and keeps using it after a restart', async () => {
    const first = await startServer({ dialect, env: { ...UNLIMITED, TRUST_PROXY: 'on' } })
    const setting = await first.ctx.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', 'visitor_secret')
      .executeTakeFirstOrThrow()
    expect(setting.value.length).toBeGreaterThanOrEqual(32)
    const client = api(first, first.apiKey)
    const code = await createDynamic(client)
    await scanOk(first, code.shortCode as string, { ip: PLACES.gb.ip })
    await first.running.close()

    const second = await startServer({ dialect, env: { DATABASE_URL: first.databaseUrl, TRUST_PROXY: 'on' } })
    servers.push(first, second)
    await scanOk(second, code.shortCode as string, { ip: PLACES.gb.ip })
    const stats = await analytics(second, api(second, first.apiKey), code.id)
    expect(stats).toMatchObject({ totalEvents: 2, uniqueVisitors: 1 })
  })
})
