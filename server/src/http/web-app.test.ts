import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Ctx } from '../context.js'
import { createWebAppRouter, locateWebDist, WebDist } from './web-app.js'

/** A GET whose body comes back as sent (fetch would inflate gzip). */
function get(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>(
    (resolve, reject) => {
      const req = request(url, { headers }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        )
      })
      req.on('error', reject)
      req.end()
    },
  )
}

async function serve(dist: WebDist): Promise<{ url: string; server: Server }> {
  const app = express()
  // Signed-out requests never reach the database: no context needed for these tests.
  app.use(createWebAppRouter({} as Ctx, dist))
  const server = createServer(app)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}

describe('the built dashboard (WebDist)', () => {
  let dir: string
  let built: { url: string; server: Server }
  let unbuilt: { url: string; server: Server }
  const script = `console.log(${JSON.stringify('x'.repeat(4000))});\n`

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'qrctl-web-'))
    mkdirSync(join(dir, 'dist', 'assets', 'chunks'), { recursive: true })
    writeFileSync(join(dir, 'dist', 'index.html'), '<script nonce="__CSP_NONCE__"></script>')
    writeFileSync(join(dir, 'dist', 'assets', 'main-ABC123.js'), script)
    writeFileSync(join(dir, 'dist', 'assets', 'chunks', 'part-XYZ.js'), 'export const a = 1\n')
    writeFileSync(join(dir, 'dist', 'assets', 'font-1.woff2'), Buffer.from([0x77, 0x4f, 0x46, 0x32]))
    writeFileSync(join(dir, 'dist', 'secret.txt'), 'outside the assets')
    built = await serve(new WebDist(join(dir, 'dist')))
    unbuilt = await serve(new WebDist(join(dir, 'missing')))
  })
  afterAll(async () => {
    await new Promise((resolve) => built.server.close(resolve))
    await new Promise((resolve) => unbuilt.server.close(resolve))
    rmSync(dir, { recursive: true, force: true })
  })

  it('finds web/dist of the @qrctl/web workspace', () => {
    expect(locateWebDist()).toMatch(/web[/\\]dist$/)
  })

  it('serves gzip to a client that takes it, once compressed, and the plain file to one that does not', async () => {
    const zipped = await get(`${built.url}/app/assets/main-ABC123.js`, {
      'accept-encoding': 'br, gzip;q=0.8',
    })
    expect(zipped.status).toBe(200)
    expect(zipped.headers['content-encoding']).toBe('gzip')
    expect(zipped.headers.vary).toBe('Accept-Encoding')
    expect(zipped.body.length).toBeLessThan(script.length / 10)
    expect(gunzipSync(zipped.body).toString()).toBe(script)
    const refusals: Record<string, string>[] = [
      {},
      { 'accept-encoding': 'identity' },
      { 'accept-encoding': 'gzip;q=0, br' },
    ]
    for (const refuses of refusals) {
      const plain = await get(`${built.url}/app/assets/main-ABC123.js`, refuses)
      expect(plain.headers['content-encoding']).toBeUndefined()
      expect(plain.body.toString()).toBe(script)
      expect(plain.headers.etag).toBe(zipped.headers.etag)
    }
  })

  it('serves files in subfolders and by type; small files as they are', async () => {
    const chunk = await get(`${built.url}/app/assets/chunks/part-XYZ.js`, { 'accept-encoding': 'gzip' })
    expect(chunk.status).toBe(200)
    expect(chunk.headers['content-encoding']).toBeUndefined()
    expect(chunk.headers['content-type']).toBe('text/javascript; charset=utf-8')
    const font = await get(`${built.url}/app/assets/font-1.woff2`)
    expect(font.headers['content-type']).toBe('font/woff2')
    expect(font.headers['cache-control']).toBe('public, max-age=31536000, immutable')
  })

  it.each([
    '/app/assets/../secret.txt',
    '/app/assets/..%2Fsecret.txt',
    '/app/assets/%2E%2E%2Fsecret.txt',
    '/app/assets/chunks/..%2F..%2Fsecret.txt',
    '/app/assets/..%5Csecret.txt',
    '/app/assets/chunks',
    '/app/assets/.%2E/secret.txt',
  ])('never serves a file outside the assets: %s', async (path) => {
    const answer = await get(`${built.url}${path}`)
    expect(answer.body.toString()).not.toContain('outside the assets')
    expect([303, 404]).toContain(answer.status)
  })

  it('answers /app with a clear 503 page when the dashboard is not built, and 404 for its assets', async () => {
    const answer = await get(`${unbuilt.url}/app/codes/new`)
    expect(answer.status).toBe(503)
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(answer.body.toString()).toContain('npm run build')
    expect((await get(`${unbuilt.url}/app/assets/main-ABC123.js`)).status).toBe(404)
  })

  it('sends a signed-out visitor of a built dashboard to the sign-in page', async () => {
    const answer = await get(`${built.url}/app/keys`)
    expect(answer.status).toBe(303)
    expect(answer.headers.location).toBe('/app/login')
  })
})
