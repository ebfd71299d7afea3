import type { QrCode } from '@qrctl/contract'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import {
  type Api,
  api,
  createCode,
  dynamicCode,
  expectError,
  fetchBytes,
  textCode,
  UNLIMITED,
} from './helpers.js'

describe.each(dialects())('accounts are isolated on %s', (dialect) => {
  let server: TestServer
  let a: Api
  let b: Api
  let live: QrCode
  let deleted: QrCode

  beforeAll(async () => {
    server = await startServer({ dialect, env: UNLIMITED })
    a = api(server, server.apiKey)
    b = api(server, (await server.createAccount()).apiKey)
    live = await createCode(a, dynamicCode({ name: 'A live' }))
    deleted = await createCode(a, textCode({ name: 'A deleted' }))
    await a.delete(`/qr-codes/${deleted.id}`)
  })
  afterAll(() => server.close())

  describe('security', () => {
    it('answers 404 to account B for A’s code on get, patch and delete', async () => {
      expectError(await b.get(`/qr-codes/${live.id}`), 404, 'not_found')
      expectError(await b.patch(`/qr-codes/${live.id}`, { name: 'hijacked' }), 404, 'not_found')
      expectError(
        await b.patch(`/qr-codes/${live.id}`, { targetUrl: 'https://evil.example' }),
        404,
        'not_found',
      )
      expectError(await b.delete(`/qr-codes/${live.id}`), 404, 'not_found')
      expect((await a.get(`/qr-codes/${live.id}`)).body.data).toEqual(live)
    })

    it('answers 404 to account B for restoring A’s deleted code, which stays deleted', async () => {
      expectError(await b.post(`/qr-codes/${deleted.id}/restore`), 404, 'not_found')
      expectError(await a.get(`/qr-codes/${deleted.id}`), 404, 'not_found')
    })

    it('answers 404 to account B for A’s analytics', async () => {
      expectError(await b.get(`/qr-codes/${live.id}/analytics`), 404, 'not_found')
      expect((await a.get(`/qr-codes/${live.id}/analytics`)).status).toBe(200)
    })

    it.each(['png', 'svg', 'pdf'])('answers 404 to account B for A’s %s image', async (format) => {
      const res = await fetchBytes(b, `${server.baseUrl}/api/v1/qr-codes/${live.id}/image.${format}`)
      expect(res.status).toBe(404)
      expect(JSON.parse(res.bytes.toString('utf8')).error).toBe('not_found')
    })

    it('answers 404 to account B for a showcase on A’s code', async () => {
      expectError(await b.post('/showcases', { qrCodeId: live.id, title: 'Not mine' }), 404, 'not_found')
    })

    it('answers the same 404 for A’s code as for a code that never existed', async () => {
      const theirs = await b.get(`/qr-codes/${live.id}`)
      const none = await b.get('/qr-codes/00000000-0000-4000-8000-000000000000')
      expect(theirs.body.details.message.replace(live.id, 'ID')).toBe(
        none.body.details.message.replace('00000000-0000-4000-8000-000000000000', 'ID'),
      )
    })

    it('never shows A’s codes in B’s lists', async () => {
      await createCode(b, textCode({ name: 'B own' }))
      for (const query of ['', '?type=dynamic', '?type=static', '?limit=100']) {
        const res = await b.get(`/qr-codes${query}`)
        expect(res.body.data.map((c: QrCode) => c.name)).not.toContain('A live')
        expect(res.text).not.toContain(live.id)
      }
      expect((await b.get('/qr-codes')).body.total).toBe(1)
    })
  })
})
