import { ManualClock } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Api, api, createCode, dynamicCode, expectError, MISSING_ID, UNLIMITED } from '../api/helpers.js'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { scansAt } from './import-helpers.js'

/** DESIGN §16: `GET /analytics`, the chosen codes (or all) together, with topCodes. */
describe.each(dialects())('GET /analytics on %s', (dialect) => {
  let server: TestServer
  const clock = new ManualClock(new Date('2026-11-20T12:00:00.000Z'))

  beforeAll(async () => {
    server = await startServer({ dialect, clock, env: UNLIMITED })
  })
  afterAll(() => server.close())

  /** A fresh account with named dynamic codes. */
  async function account(names: string[]) {
    const owner = await server.createAccount()
    const client = api(server, owner.apiKey)
    const codes: Record<string, string> = {}
    for (const name of names) codes[name] = (await createCode(client, dynamicCode({ name }))).id
    return { ...owner, client, codes }
  }

  async function stats(client: Api, query: string) {
    const res = await client.get(`/analytics?${query}`)
    expect(res.status, res.text).toBe(200)
    return res.body.data
  }

  describe('happy', () => {
    it('adds up every live code, counts a visitor once across codes, and ranks topCodes', async () => {
      const a = await account(['Menu', 'Door', 'Flyer', 'Quiet'])
      await scansAt(server, a.accountId, a.codes.Menu as string, [
        { at: '2026-11-10T10:00:00.000Z', visitor: 'x' },
        { at: '2026-11-11T10:00:00.000Z', visitor: 'y' },
      ])
      await scansAt(server, a.accountId, a.codes.Door as string, [
        { at: '2026-11-12T10:00:00.000Z', visitor: 'x' },
        { at: '2026-11-12T11:00:00.000Z', visitor: 'z' },
      ])
      await scansAt(server, a.accountId, a.codes.Flyer as string, [
        { at: '2026-11-13T10:00:00.000Z', visitor: 'x' },
      ])
      const all = await stats(a.client, 'from=2026-11-01&to=2026-11-20')
      expect(all).toMatchObject({
        from: '2026-11-01',
        to: '2026-11-20',
        timezone: 'UTC',
        totalEvents: 5,
        uniqueVisitors: 3,
      })
      // Ties by name: Door before Menu; a code without scans in the window is not listed.
      expect(all.topCodes).toEqual([
        { id: a.codes.Door, name: 'Door', count: 2 },
        { id: a.codes.Menu, name: 'Menu', count: 2 },
        { id: a.codes.Flyer, name: 'Flyer', count: 1 },
      ])
      expect(all.eventsByDay).toHaveLength(20)
      const chosen = await stats(
        a.client,
        `qrCodeIds=${a.codes.Menu},${a.codes.Flyer}&from=2026-11-01&to=2026-11-20`,
      )
      expect(chosen).toMatchObject({ totalEvents: 3, uniqueVisitors: 2 })
      expect(chosen.topCodes.map((c: { name: string }) => c.name)).toEqual(['Menu', 'Flyer'])
      // Default 30d in the zone; compare=previous works here too.
      const byDefault = await stats(a.client, 'timezone=Asia/Kathmandu&compare=previous')
      expect(byDefault).toMatchObject({ from: '2026-10-22', to: '2026-11-20', totalEvents: 5 })
      expect(byDefault.previous).toEqual({
        from: '2026-09-22',
        to: '2026-10-21',
        totalEvents: 0,
        uniqueVisitors: 0,
      })
    })

    it('leaves deleted codes out and starts period=all on the earliest creation', async () => {
      clock.set('2026-11-01T09:00:00.000Z')
      const a = await account(['Old'])
      clock.set('2026-11-20T12:00:00.000Z')
      const later = await createCode(a.client, dynamicCode({ name: 'Gone' }))
      await scansAt(server, a.accountId, a.codes.Old as string, ['2026-11-05T10:00:00.000Z'])
      await scansAt(server, a.accountId, later.id, ['2026-11-20T10:00:00.000Z'])
      expect((await stats(a.client, 'period=all')).totalEvents).toBe(2)
      await a.client.delete(`/qr-codes/${later.id}`)
      const all = await stats(a.client, 'period=all')
      expect(all).toMatchObject({ from: '2026-11-01', to: '2026-11-20', totalEvents: 1 })
      expect(all.topCodes).toEqual([{ id: a.codes.Old, name: 'Old', count: 1 }])
      expectError(await a.client.get(`/analytics?qrCodeIds=${later.id}`), 404, 'not_found')
    })

    it('takes tag, repeatable, as the list does: codes with every tag, with qrCodeIds too', async () => {
      const a = await account([])
      const menu = await createCode(a.client, dynamicCode({ name: 'Menu', tags: ['spring', 'Menu'] }))
      const door = await createCode(a.client, dynamicCode({ name: 'Door', tags: ['spring'] }))
      const flyer = await createCode(a.client, dynamicCode({ name: 'Flyer', tags: ['autumn'] }))
      await scansAt(server, a.accountId, menu.id, [{ at: '2026-11-10T10:00:00.000Z', visitor: 'x' }])
      await scansAt(server, a.accountId, door.id, [
        { at: '2026-11-11T10:00:00.000Z', visitor: 'x' },
        { at: '2026-11-11T11:00:00.000Z', visitor: 'y' },
      ])
      await scansAt(server, a.accountId, flyer.id, [{ at: '2026-11-12T10:00:00.000Z', visitor: 'z' }])
      const window = 'from=2026-11-01&to=2026-11-20'
      const spring = await stats(a.client, `tag=spring&${window}`)
      expect(spring).toMatchObject({ totalEvents: 3, uniqueVisitors: 2 })
      expect(spring.topCodes.map((c: { name: string }) => c.name)).toEqual(['Door', 'Menu'])
      // Normalised like tags; repeated: codes with every one.
      expect(await stats(a.client, `tag=%20MENU%20&tag=spring&${window}`)).toMatchObject({ totalEvents: 1 })
      expect(await stats(a.client, `tag=spring&qrCodeIds=${door.id},${flyer.id}&${window}`)).toMatchObject({
        totalEvents: 2,
        uniqueVisitors: 2,
      })
      // A tag no code carries: zeros, not a 404; a code named by qrCodeIds must still exist.
      expect(await stats(a.client, `tag=winter&${window}`)).toMatchObject({ totalEvents: 0, topCodes: [] })
      expectError(await a.client.get(`/analytics?tag=spring&qrCodeIds=${MISSING_ID}`), 404, 'not_found')
      // The export takes it too.
      const csv = await a.client.get(`/analytics/export?tag=spring&${window}`)
      expect(csv.status).toBe(200)
      expect(csv.text.trim().split('\n')).toHaveLength(1 + 3)
    })

    it('answers zeros for an account without codes', async () => {
      const a = await account([])
      const data = await stats(a.client, 'period=7d')
      expect(data).toMatchObject({ totalEvents: 0, uniqueVisitors: 0, topCodes: [] })
      expect(data.eventsByDay).toHaveLength(7)
    })
  })

  describe('errors', () => {
    it('answers 400 for qrCodeIds that are not 1–100 UUIDs, and for a tag that is no tag', async () => {
      const a = await account(['One'])
      for (const query of [
        'qrCodeIds=',
        'qrCodeIds=nope',
        `qrCodeIds=${a.codes.One},`,
        `qrCodeIds=${Array(101).fill(MISSING_ID).join(',')}`,
        'tag=',
        'tag=no%2Fslash',
        `tag=${'x'.repeat(41)}`,
      ]) {
        const res = await a.client.get(`/analytics?${query}`)
        expectError(res, 400, 'validation_error')
        expect(res.body.details.issues[0].path, query).toMatch(
          query.startsWith('tag') ? /^tag/ : /^qrCodeIds$/,
        )
      }
    })

    it('answers 404 naming an id that is no code of the account', async () => {
      const a = await account(['One'])
      const res = await a.client.get(`/analytics?qrCodeIds=${a.codes.One},${MISSING_ID}`)
      expectError(res, 404, 'not_found')
      expect(res.body.details.message).toContain(MISSING_ID)
    })
  })

  describe('security', () => {
    it('never counts or names another account’s codes', async () => {
      const a = await account(['Mine'])
      const b = await account(['Theirs'])
      await scansAt(server, b.accountId, b.codes.Theirs as string, ['2026-11-19T10:00:00.000Z'])
      const mine = await stats(a.client, 'period=7d')
      expect(mine).toMatchObject({ totalEvents: 0, topCodes: [] })
      expectError(await a.client.get(`/analytics?qrCodeIds=${b.codes.Theirs}`), 404, 'not_found')
    })

    it('answers 403 to a write-only key', async () => {
      const writer = await server.createAccount({ scope: 'write' })
      expectError(await api(server, writer.apiKey).get('/analytics'), 403, 'insufficient_scope')
    })
  })
})
