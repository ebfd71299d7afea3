import type { QrCode } from '@qrctl/contract'
import { ManualClock, runHousekeeping } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import {
  type Api,
  api,
  createCode,
  decodePng,
  dynamicCode,
  expectError,
  fetchBytes,
  MISSING_ID,
  T0,
  textCode,
  UNLIMITED,
} from './helpers.js'

const MINUTE = 60_000
const DAY = 86_400_000

describe.each(dialects())('changing and deleting QR codes on %s', (dialect) => {
  let server: TestServer
  let client: Api
  const clock = new ManualClock(new Date(T0))

  beforeAll(async () => {
    server = await startServer({ dialect, clock, env: UNLIMITED })
    client = api(server, server.apiKey)
  })
  afterAll(() => server.close())

  async function rowOf(id: string) {
    return server.ctx.db.selectFrom('qr_codes').selectAll().where('id', '=', id).executeTakeFirst()
  }

  describe('PATCH /qr-codes/{id}', () => {
    describe('happy', () => {
      it('changes the name and moves updatedAt, not createdAt', async () => {
        const code = await createCode(client)
        clock.advance(MINUTE)
        const res = await client.patch(`/qr-codes/${code.id}`, { name: 'Renamed' })
        expect(res.status).toBe(200)
        expect(res.body.data).toMatchObject({ name: 'Renamed', createdAt: code.createdAt })
        expect(Date.parse(res.body.data.updatedAt) - Date.parse(code.updatedAt)).toBe(MINUTE)
        expect((await client.get(`/qr-codes/${code.id}`)).body.data).toEqual(res.body.data)
      })

      it('pauses and resumes a code with isActive', async () => {
        const code = await createCode(client, dynamicCode())
        const off = await client.patch(`/qr-codes/${code.id}`, { isActive: false })
        expect(off.body.data.isActive).toBe(false)
        expect((await client.get(`/qr-codes/${code.id}`)).body.data.isActive).toBe(false)
        const on = await client.patch(`/qr-codes/${code.id}`, { isActive: true })
        expect(on.body.data.isActive).toBe(true)
      })

      it('changes a dynamic code’s targetUrl and keeps its short code and image', async () => {
        const code = await createCode(client, dynamicCode())
        const before = await fetchBytes(client, code.assets.png)
        const res = await client.patch(`/qr-codes/${code.id}`, { targetUrl: 'https://example.org/new' })
        expect(res.status).toBe(200)
        expect(res.body.data).toMatchObject({
          targetUrl: 'https://example.org/new',
          shortCode: code.shortCode,
        })
        const after = await fetchBytes(client, code.assets.png)
        expect(after.bytes.equals(before.bytes)).toBe(true)
        expect(decodePng(after.bytes)).toBe(`${server.baseUrl}/r/${code.shortCode}`)
      })

      it('changes a static code’s content, re-validated and re-encoded in its image', async () => {
        const code = await createCode(client, {
          name: 'mail',
          contentType: 'email',
          content: 'a@example.com',
        })
        const res = await client.patch(`/qr-codes/${code.id}`, { content: 'b@example.com' })
        expect(res.status).toBe(200)
        expect(res.body.data.content).toBe('b@example.com')
        expect(decodePng((await fetchBytes(client, code.assets.png)).bytes)).toBe('mailto:b@example.com')
      })

      it('sets and clears the style', async () => {
        const code = await createCode(client)
        const set = await client.patch(`/qr-codes/${code.id}`, { style: { foregroundColor: '#003366' } })
        expect(set.body.data.style).toEqual({ foregroundColor: '#003366' })
        const cleared = await client.patch(`/qr-codes/${code.id}`, { style: null })
        expect(cleared.body.data.style).toBeNull()
      })

      it('treats an empty body as a no-op: nothing changes, not even updatedAt', async () => {
        const code = await createCode(client)
        clock.advance(MINUTE)
        const res = await client.patch(`/qr-codes/${code.id}`, {})
        expect(res.status).toBe(200)
        expect(res.body.data).toEqual(code)
      })

      it('accepts targetUrl null on a static code as a no-op', async () => {
        const code = await createCode(client)
        const res = await client.patch(`/qr-codes/${code.id}`, { targetUrl: null, name: 'still static' })
        expect(res.status).toBe(200)
        expect(res.body.data).toMatchObject({ type: 'static', targetUrl: null, name: 'still static' })
      })
    })

    describe('errors', () => {
      it('answers 400 for a targetUrl on a static code', async () => {
        const code = await createCode(client)
        const res = await client.patch(`/qr-codes/${code.id}`, { targetUrl: 'https://example.com' })
        expectError(res, 400, 'validation_error')
        expect(res.body.details.issues[0]).toMatchObject({
          path: 'targetUrl',
          message: expect.stringMatching(/static/),
        })
        expect((await client.get(`/qr-codes/${code.id}`)).body.data).toEqual(code)
      })

      it('answers 400 for targetUrl null on a dynamic code', async () => {
        const code = await createCode(client, dynamicCode())
        expectError(await client.patch(`/qr-codes/${code.id}`, { targetUrl: null }), 400, 'validation_error')
      })

      it('answers 400 with a message when asked to change the type or contentType', async () => {
        const code = await createCode(client)
        const type = await client.patch(`/qr-codes/${code.id}`, { type: 'dynamic' })
        expectError(type, 400, 'validation_error')
        expect(type.body.details.message).toMatch(/type cannot change after creation/)
        const contentType = await client.patch(`/qr-codes/${code.id}`, { contentType: 'url' })
        expectError(contentType, 400, 'validation_error')
        expect(contentType.body.details.message).toMatch(/contentType cannot change/)
      })

      it('re-validates content against the code’s contentType', async () => {
        const code = await createCode(client, { name: 'tel', contentType: 'phone', content: '+15550100' })
        const res = await client.patch(`/qr-codes/${code.id}`, { content: 'not a number' })
        expectError(res, 400, 'validation_error')
        expect(res.body.details.issues[0]).toMatchObject({
          path: 'content',
          message: expect.stringMatching(/phone/),
        })
        const url = await createCode(client, dynamicCode())
        expectError(await client.patch(`/qr-codes/${url.id}`, { content: 'no url' }), 400, 'validation_error')
      })

      it('re-checks capacity when the style raises the error-correction level', async () => {
        const code = await createCode(
          client,
          textCode({ content: 'x'.repeat(2000), style: { errorCorrectionLevel: 'L' } }),
        )
        const res = await client.patch(`/qr-codes/${code.id}`, { style: { errorCorrectionLevel: 'H' } })
        expectError(res, 400, 'validation_error')
        expect(res.body.details.message).toMatch(/at most 1273 bytes fit/)
      })

      it.each([
        [{ style: { foregroundColor: '#EEEEEE' } }, 'style.foregroundColor'],
        [{ isActive: 'yes' }, 'isActive'],
        [{ name: '' }, 'name'],
        [{ targetUrl: 'mailto:a@example.com' }, 'targetUrl'],
        [{ shortCode: 'abcdefg' }, ''],
      ])('answers 400 for %j', async (patch, path) => {
        const code = await createCode(client, dynamicCode())
        const res = await client.patch(`/qr-codes/${code.id}`, patch)
        expectError(res, 400, 'validation_error')
        expect(res.body.details.issues[0].path).toBe(path)
      })

      it('answers 404 for an unknown code', async () => {
        expectError(await client.patch(`/qr-codes/${MISSING_ID}`, { name: 'x' }), 404, 'not_found')
      })

      it('checks two PATCHes at once one after the other: new content and a new style that fit alone but not together', async () => {
        for (let trial = 0; trial < 5; trial++) {
          const code = await createCode(
            client,
            textCode({ content: 'x'.repeat(1000), style: { errorCorrectionLevel: 'L' } }),
          )
          const [content, style] = await Promise.all([
            client.patch(`/qr-codes/${code.id}`, { content: 'y'.repeat(2000) }),
            client.patch(`/qr-codes/${code.id}`, { style: { errorCorrectionLevel: 'H' } }),
          ])
          expect([content.status, style.status].sort()).toEqual([200, 400])
          const stored = (await client.get(`/qr-codes/${code.id}`)).body.data
          const image = await fetchBytes(
            client,
            `${server.baseUrl}/api/v1/qr-codes/${code.id}/image.png?size=1024`,
          )
          expect(image.status).toBe(200)
          expect(decodePng(image.bytes)).toBe(stored.content)
        }
      })
    })
  })

  describe('DELETE /qr-codes/{id}', () => {
    it('soft-deletes: the code is gone from get, list, patch and images, but its row is kept', async () => {
      const code = await createCode(client)
      const res = await client.delete(`/qr-codes/${code.id}`)
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ success: true })
      expectError(await client.get(`/qr-codes/${code.id}`), 404, 'not_found')
      expectError(await client.patch(`/qr-codes/${code.id}`, { name: 'x' }), 404, 'not_found')
      expect((await fetchBytes(client, code.assets.png)).status).toBe(404)
      const list = await client.get('/qr-codes?limit=100')
      expect(list.body.data.map((c: QrCode) => c.id)).not.toContain(code.id)
      expect((await rowOf(code.id))?.deleted_at).toBe(clock.now().toISOString())
    })

    it('answers 404 the second time', async () => {
      const code = await createCode(client)
      expect((await client.delete(`/qr-codes/${code.id}`)).status).toBe(200)
      expectError(await client.delete(`/qr-codes/${code.id}`), 404, 'not_found')
    })

    it('answers 404 for an unknown code and 400 for a malformed id', async () => {
      expectError(await client.delete(`/qr-codes/${MISSING_ID}`), 404, 'not_found')
      expectError(await client.delete('/qr-codes/123'), 400, 'validation_error')
    })
  })

  describe('POST /qr-codes/{id}/restore', () => {
    it('brings a code back within 30 days, as it was', async () => {
      const code = await createCode(client, dynamicCode())
      await client.delete(`/qr-codes/${code.id}`)
      clock.advance(30 * DAY - 1000)
      const res = await client.post(`/qr-codes/${code.id}/restore`)
      expect(res.status).toBe(200)
      expect(res.body.data).toMatchObject({
        id: code.id,
        shortCode: code.shortCode,
        targetUrl: code.targetUrl,
      })
      expect((await client.get(`/qr-codes/${code.id}`)).status).toBe(200)
      const list = await client.get('/qr-codes?limit=100')
      expect(list.body.data.map((c: QrCode) => c.id)).toContain(code.id)
    })

    it('answers 404 after 30 days', async () => {
      const code = await createCode(client)
      await client.delete(`/qr-codes/${code.id}`)
      clock.advance(30 * DAY + 1000)
      expectError(await client.post(`/qr-codes/${code.id}/restore`), 404, 'not_found')
    })

    it('answers 404 for a code that is not deleted, and for an unknown one', async () => {
      const code = await createCode(client)
      expectError(await client.post(`/qr-codes/${code.id}/restore`), 404, 'not_found')
      expectError(await client.post(`/qr-codes/${MISSING_ID}/restore`), 404, 'not_found')
    })
  })

  describe('purge (runHousekeeping)', () => {
    it('removes codes deleted over 30 days ago and keeps younger deletions restorable', async () => {
      const old = await createCode(client, dynamicCode({ name: 'purged' }))
      const young = await createCode(client)
      const live = await createCode(client)
      await client.delete(`/qr-codes/${old.id}`)
      clock.advance(10 * DAY)
      await client.delete(`/qr-codes/${young.id}`)
      clock.advance(21 * DAY)
      const result = await runHousekeeping(server.ctx)
      expect(result.purgedCodes).toBeGreaterThanOrEqual(1)
      expect(await rowOf(old.id)).toBeUndefined()
      expect(await rowOf(young.id)).toBeDefined()
      expect(await rowOf(live.id)).toBeDefined()
      expectError(await client.post(`/qr-codes/${old.id}/restore`), 404, 'not_found')
      expect((await client.post(`/qr-codes/${young.id}/restore`)).status).toBe(200)
      expect((await runHousekeeping(server.ctx)).purgedCodes).toBe(0)
    })

    it('removes a purged code’s showcases and scans with it, from every table', async () => {
      const code = await createCode(client, dynamicCode({ name: 'with history' }))
      const showcase = await client.post('/showcases', { qrCodeId: code.id, title: 'Purged page' })
      expect(showcase.status).toBe(201)
      const scan = await fetch(code.shortUrl as string, {
        redirect: 'manual',
        headers: {
          'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148 Safari/604.1',
        },
      })
      expect(scan.status).toBe(302)
      await server.running.scans.flush()
      const tables = await server.ctx.db.introspection.getTables()
      const withCode = tables.filter((t) => t.columns.some((c) => c.name === 'qr_code_id')).map((t) => t.name)
      expect(withCode).toEqual(expect.arrayContaining(['showcases', 'scans']))
      const rowsOf = async (table: string) =>
        (
          await server.ctx.db
            .selectFrom(table as 'scans')
            .select('qr_code_id')
            .where('qr_code_id', '=', code.id)
            .execute()
        ).length
      expect(await rowsOf('showcases')).toBe(1)
      expect(await rowsOf('scans')).toBe(1)
      await client.delete(`/qr-codes/${code.id}`)
      clock.advance(30 * DAY + 1000)
      await runHousekeeping(server.ctx)
      expect(await rowOf(code.id)).toBeUndefined()
      for (const table of withCode) expect(await rowsOf(table), table).toBe(0)
    })
  })
})
