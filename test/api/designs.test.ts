import type { QrCode, Style } from '@qrctl/contract'
import { PNG } from 'pngjs'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import {
  type Api,
  api,
  createCode,
  decodePng,
  dumpDatabase,
  dynamicCode,
  expectError,
  expectNoLeak,
  fetchBytes,
  textCode,
  UNLIMITED,
} from './helpers.js'

/** DESIGN §13: the style keys of branded designs, their validation and the save-time decode check. */

const DESIGN: Style = {
  moduleShape: 'dot',
  finderShape: 'rounded',
  finderDotShape: 'rounded',
  finderColor: '#B71C1C',
  gradient: { type: 'linear', colors: ['#1A237E', '#4A148C'], rotation: 90 },
  frame: { style: 'banner', text: 'Scan for the menu' },
}

/** A box frame pressed against a symbol with no quiet zone: no decoder finds the finders. */
const UNSCANNABLE: Style = { margin: 0, frame: { style: 'box', text: 'Scan' } }

function pngSize(bytes: Buffer): { width: number; height: number } {
  const image = PNG.sync.read(bytes)
  return { width: image.width, height: image.height }
}

describe.each(dialects())('branded designs on %s', (dialect) => {
  let server: TestServer
  let client: Api

  beforeAll(async () => {
    server = await startServer({ dialect, env: UNLIMITED })
    client = api(server, server.apiKey)
  })
  afterAll(() => server.close())

  describe('happy', () => {
    it('stores and answers every design key, and serves images that decode', async () => {
      const code = await createCode(client, dynamicCode({ style: DESIGN }))
      expect(code.style).toEqual(DESIGN)
      expect((await client.get(`/qr-codes/${code.id}`)).body.data.style).toEqual(DESIGN)
      const png = await fetchBytes(client, `${code.assets.png}?size=600`)
      expect(png.status).toBe(200)
      const size = pngSize(png.bytes)
      expect(size.width).toBe(600)
      expect(size.height).toBeGreaterThan(600)
      expect(decodePng(png.bytes)).toBe(code.shortUrl)
      const svg = await fetchBytes(client, code.assets.svg)
      expect(svg.bytes.toString()).toContain('<linearGradient')
      const pdf = await fetchBytes(client, code.assets.pdf)
      expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-')
    })

    it('checks a styled batch item by item and creates the ones that scan', async () => {
      const res = await client.post('/qr-codes/batch', {
        codes: [
          textCode({ name: 'a', style: DESIGN }),
          textCode({ name: 'b', style: UNSCANNABLE }),
          dynamicCode({ name: 'c', style: { moduleShape: 'rounded' } }),
        ],
      })
      expect(res.status).toBe(201)
      expect(res.body.data.created).toBe(2)
      expect(res.body.data.errors).toHaveLength(1)
      expect(res.body.data.errors[0]).toMatch(/^codes\[1\]\.style: unscannable: /)
      expect(res.body.data.items.map((c: QrCode) => c.name)).toEqual(['a', 'c'])
    })

    it('answers other requests while the decode checks of a styled batch run', async () => {
      // The checks run on the server's threads: its event loop stays free meanwhile. One code
      // first, so that nothing is loaded for the first time (which would yield) during the batch,
      // and a thread is ready (until then the server runs checks itself, one at a time).
      await createCode(client, textCode({ name: 'warm', style: DESIGN }))
      const checks = server.ctx.checks
      await vi.waitFor(() => expect(checks.threads).toBeGreaterThan(0), { timeout: 30_000 })
      const check = checks.check
      let checking!: () => void
      const started = new Promise<void>((resolve) => {
        checking = resolve
      })
      checks.check = (...args) => {
        checking()
        return check.apply(checks, args)
      }
      try {
        let answered = false
        const codes = Array.from({ length: 6 }, (_, i) => textCode({ name: `busy ${i}`, style: DESIGN }))
        const batch = client.post('/qr-codes/batch', { codes }).finally(() => {
          answered = true
        })
        await started
        const health = await fetch(`${server.baseUrl}/healthz`)
        expect(health.status).toBe(200)
        expect(answered).toBe(false)
        expect((await batch).body.data.created).toBe(6)
      } finally {
        checks.check = check
      }
    })

    it('re-checks on PATCH and keeps the old style when the new one fails', async () => {
      const code = await createCode(client, textCode({ content: 'patch me' }))
      const ok = await client.patch(`/qr-codes/${code.id}`, { style: { moduleShape: 'rounded' } })
      expect(ok.status).toBe(200)
      expect(ok.body.data.style).toEqual({ moduleShape: 'rounded' })
      const bad = await client.patch(`/qr-codes/${code.id}`, { style: UNSCANNABLE })
      expectError(bad, 400, 'unscannable')
      expect((await client.get(`/qr-codes/${code.id}`)).body.data.style).toEqual({ moduleShape: 'rounded' })
    })

    it('keeps v1 styles drawn as before, without a decode check', async () => {
      const code = await createCode(client, textCode({ style: { margin: 0 } }))
      expect(code.style).toEqual({ margin: 0 })
      const png = await fetchBytes(client, `${code.assets.png}?size=256`)
      expect(pngSize(png.bytes)).toEqual({ width: 256, height: 256 })
    })
  })

  describe('errors', () => {
    it('answers 400 unscannable with the checks, and stores nothing', async () => {
      const before = await dumpDatabase(server)
      const res = await client.post('/qr-codes', textCode({ content: 'never stored', style: UNSCANNABLE }))
      expectError(res, 400, 'unscannable')
      const checks = res.body.details.checks
      expect(checks).toHaveLength(4)
      for (const check of checks) {
        expect(check).toEqual({
          size: expect.any(Number),
          decoder: expect.any(String),
          ok: expect.any(Boolean),
        })
      }
      expect(checks.map((c: { size: number }) => c.size)).toContain(1024)
      expect(new Set(checks.map((c: { decoder: string }) => c.decoder))).toEqual(
        new Set(['jsqr', 'zxing-cpp']),
      )
      expect(checks.some((c: { ok: boolean }) => !c.ok)).toBe(true)
      expect(await dumpDatabase(server)).toEqual(before)
    })

    it.each<[unknown, string]>([
      [{ moduleShape: 'star' }, 'style.moduleShape'],
      [{ finderShape: 'triangle' }, 'style.finderShape'],
      [{ finderDotShape: 1 }, 'style.finderDotShape'],
      [{ finderColor: 'red' }, 'style.finderColor'],
      [{ finderColor: '#EEEEEE' }, 'style.finderColor'],
      [{ gradient: { type: 'conic', colors: ['#000', '#111'] } }, 'style.gradient.type'],
      [{ gradient: { type: 'linear', colors: ['#000'] } }, 'style.gradient.colors'],
      [{ gradient: { type: 'linear', colors: ['#000', '#FFFF00'] } }, 'style.gradient.colors.1'],
      [{ gradient: { type: 'linear', colors: ['#000', '#111'], rotation: 361 } }, 'style.gradient.rotation'],
      [{ gradient: { type: 'linear', colors: ['#000', '#111'], angle: 3 } }, 'style.gradient'],
      [{ frame: { style: 'box' } }, 'style.frame.text'],
      [{ frame: { style: 'circle', text: 'x' } }, 'style.frame.style'],
      [{ frame: { style: 'box', text: 'x'.repeat(31) } }, 'style.frame.text'],
      [{ frame: { style: 'box', text: '   ' } }, 'style.frame.text'],
      [{ frame: { style: 'box', text: 'x', position: 'left' } }, 'style.frame.position'],
      [{ frame: { style: 'box', text: 'x', color: '#000', textColor: '#222' } }, 'style.frame.textColor'],
      [{ frame: { style: 'box', text: 'Menü 中文' } }, 'style.frame.text'],
      [{ frame: { style: 'box', text: 'tab\there' } }, 'style.frame.text'],
    ])('answers 400 naming the field for style %j', async (style, path) => {
      const res = await client.post('/qr-codes', { ...textCode(), style })
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues.map((i: { path: string }) => i.path)).toContain(path)
      expectNoLeak(res.text)
    })

    it('names the characters the frame font cannot draw', async () => {
      const res = await client.post(
        '/qr-codes',
        textCode({ style: { frame: { style: 'banner', text: 'Menü 中文' } } }),
      )
      expect(res.body.details.issues).toEqual([
        { path: 'style.frame.text', message: 'The frame font cannot draw: 中 文' },
      ])
    })

    it('refuses undrawable frame text on PATCH too', async () => {
      const code = await createCode(client, textCode())
      const res = await client.patch(`/qr-codes/${code.id}`, {
        style: { frame: { style: 'box', text: '中' } },
      })
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues[0].path).toBe('style.frame.text')
    })
  })

  describe('security', () => {
    it('draws another account’s code for nobody but its owner', async () => {
      const code = await createCode(client, textCode({ style: DESIGN }))
      const other = api(server, (await server.createAccount()).apiKey)
      expectError(await other.get(`/qr-codes/${code.id}`), 404, 'not_found')
      const png = await fetch(code.assets.png, { headers: { authorization: `Bearer ${other.key}` } })
      expect(png.status).toBe(404)
    })

    it('answers 403 to a read-only key creating a styled code', async () => {
      const key = await client.post('/api-keys', { name: 'reader', scope: 'read' })
      const reader = api(server, key.body.data.secret)
      expectError(await reader.post('/qr-codes', textCode({ style: DESIGN })), 403, 'insufficient_scope')
    })
  })
})
