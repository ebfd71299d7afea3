import { afterAll, describe, expect, it } from 'vitest'
import { api, UNLIMITED } from '../api/helpers.js'
import { analytics, createDynamic, scanOk, totalScans } from '../redirects/scan-helpers.js'
import { dialects, startServer, type TestServer } from '../support/server.js'

describe.runIf(dialects().includes('postgres'))(
  'two servers writing scans to one PostgreSQL database',
  () => {
    const servers: TestServer[] = []
    afterAll(async () => {
      for (const server of servers.reverse()) await server.close()
    })

    it('count a visitor both saw at the same time once, and every scan once', async () => {
      const env = { ...UNLIMITED, TRUST_PROXY: 'on' }
      const a = await startServer({ dialect: 'postgres', env })
      servers.push(a)
      const b = await startServer({ dialect: 'postgres', env: { ...env, DATABASE_URL: a.databaseUrl } })
      servers.push(b)
      const client = api(a, a.apiKey)
      const code = await createDynamic(client)
      for (let round = 0; round < 3; round++) {
        await Promise.all(
          Array.from({ length: 40 }, async (_, i) => {
            await scanOk(a, code.shortCode as string, { ip: `9.9.${round}.${i}` })
            await scanOk(b, code.shortCode as string, { ip: `9.9.${round}.${i}` })
          }),
        )
        // Both buffers hold the same new visitors; written at once, one transaction must retry.
        await Promise.all([a.running.scans.flush(), b.running.scans.flush()])
      }
      const stats = await analytics(a, client, code.id, 'all')
      expect(stats).toMatchObject({ totalEvents: 240, uniqueVisitors: 120 })
      expect((await analytics(a, client, code.id, '7d')).uniqueVisitors).toBe(120)
      expect(await totalScans(client, code.id)).toBe(240)
    })
  },
)
