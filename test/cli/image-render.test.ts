import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { encodePayload } from '@qrctl/contract'
import { type QrCode, Qrctl } from '@qrctl/sdk'
import { PNG } from 'pngjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from '../support/server.js'
import { apiEnv, buildCli, type Home, hasColor, plain, runCli, tempHome } from './support/cli.js'
import { decodePng, decodeTerminal } from './support/qr.js'

let server: TestServer
let home: Home
let env: Record<string, string>
let sdk: Qrctl
let dynamic: QrCode

beforeAll(async () => {
  buildCli()
  server = await startServer()
  home = tempHome()
  env = apiEnv(home, server, server.apiKey)
  sdk = new Qrctl({ apiKey: server.apiKey, baseUrl: server.baseUrl })
  dynamic = await sdk.qrCodes.create({
    name: 'Menu',
    contentType: 'url',
    content: 'https://example.com/menu',
    type: 'dynamic',
  })
}, 180_000)
afterAll(async () => {
  await sdk.close()
  await server.close()
  home.cleanup()
})

describe('image', () => {
  it('downloads the PNG to a file; it decodes to the short URL', async () => {
    const file = join(home.dir, 'menu.png')
    const res = await runCli(['image', dynamic.id, '-o', file, '--size', '300'], { env })
    expect(res.code).toBe(0)
    expect(res.stdout).toBe('')
    expect(res.stderr).toContain(`Wrote ${file} (PNG`)
    const bytes = readFileSync(file)
    expect(PNG.sync.read(bytes).width).toBe(300)
    expect(decodePng(bytes)).toBe(dynamic.shortUrl)
  })

  it('takes the format from the file name, and writes to stdout with -o - (the default when piped)', async () => {
    const pdf = join(home.dir, 'menu.pdf')
    expect((await runCli(['image', dynamic.id, '-o', pdf], { env })).code).toBe(0)
    expect(readFileSync(pdf).subarray(0, 5).toString()).toBe('%PDF-')
    const svg = await runCli(['image', dynamic.id, '--format', 'svg', '-o', '-'], { env })
    expect(svg.code).toBe(0)
    expect(svg.stdout).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/)
    expect(svg.stderr).toBe('')
    const piped = await runCli(['image', dynamic.id], { env })
    expect(piped.code).toBe(0)
    expect(decodePng(piped.stdoutBytes)).toBe(dynamic.shortUrl)
    expect(await sdk.qrCodes.image(dynamic.id, { format: 'png' })).toEqual(new Uint8Array(piped.stdoutBytes))
  })

  it('refuses to write PNG or PDF bytes to a terminal (exit 2), before downloading', async () => {
    for (const args of [['-o', '-'], ['--format', 'pdf', '-o', '-'], []]) {
      const res = await runCli(['image', dynamic.id, ...args], { env, tty: 'stdout' })
      expect(res.code).toBe(2)
      expect(plain(res.stdout)).toBe('')
      expect(res.stderr).toMatch(/Refusing to write binary|Where should the image go/)
    }
  })

  it('refuses a file name without an image extension when no --format is given (exit 2)', async () => {
    const res = await runCli(['image', dynamic.id, '-o', join(home.dir, 'menu.jpeg')], { env })
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('Cannot tell the format')
  })
})

describe('render (offline)', () => {
  /** No key and no server: render must never need either. */
  const offline = () => ({ ...home.env, QRCTL_BASE_URL: 'http://127.0.0.1:9' })

  it('writes a PNG that decodes to the encoded payload', async () => {
    const file = join(home.dir, 'wifi.png')
    const content = 'WIFI:T:WPA;S:Cafe;P:espresso42;;'
    const res = await runCli(['render', '-t', 'wifi', '-c', content, '-o', file], { env: offline() })
    expect(res.code).toBe(0)
    const encoded = encodePayload({ contentType: 'wifi', content })
    expect(encoded.ok && decodePng(readFileSync(file))).toBe(encoded.ok && encoded.payload)
  })

  it('produces the same bytes as the server’s image of the same static code', async () => {
    const style = {
      foregroundColor: '#1A1A2E',
      backgroundColor: '#F5F5DC',
      errorCorrectionLevel: 'Q' as const,
      margin: 2,
    }
    const code = await sdk.qrCodes.create({
      name: 'Mail',
      contentType: 'email',
      content: 'hi@example.com',
      style,
    })
    for (const [format, size] of [
      ['png', 640],
      ['svg', undefined],
    ] as const) {
      const file = join(home.dir, `mail.${format}`)
      const args = [
        'render',
        '-t',
        'email',
        '-c',
        'hi@example.com',
        '--fg',
        '#1A1A2E',
        '--bg',
        '#F5F5DC',
        '--ec',
        'Q',
        '--margin',
        '2',
        '-o',
        file,
      ]
      const res = await runCli(size ? [...args, '--size', String(size)] : args, { env: offline() })
      expect(res.code).toBe(0)
      const served = await sdk.qrCodes.image(code.id, { format, ...(size ? { size } : {}) })
      expect(new Uint8Array(readFileSync(file))).toEqual(served)
    }
  })

  it('draws block characters when piped; rasterised, they decode', async () => {
    const res = await runCli(['render', '--content', 'https://example.com/terminal'], { env: offline() })
    expect(res.code).toBe(0)
    expect(res.stderr).toBe('')
    expect(res.stdout).toMatch(/^[ ▀▄█\n]+$/)
    expect(hasColor(res.stdout)).toBe(false)
    expect(decodeTerminal(res.stdout)).toBe('https://example.com/terminal')
  })

  it('with --invert draws the light modules; read that way, it decodes too', async () => {
    const res = await runCli(['render', '-t', 'phone', '-c', '+1 555 0100', '--invert'], { env: offline() })
    expect(res.code).toBe(0)
    expect(decodeTerminal(res.stdout, { inkIsDark: false })).toBe('tel:+15550100')
  })

  it('paints dark on light on a colour terminal, and still decodes without the colour', async () => {
    const res = await runCli(['render', '-c', 'https://example.com/tty', '--margin', '2'], {
      env: offline(),
      tty: 'stdout',
    })
    expect(res.code).toBe(0)
    expect(hasColor(res.stdout)).toBe(true)
    expect(decodeTerminal(plain(res.stdout))).toBe('https://example.com/tty')
  })

  it.each([
    [
      'invalid content',
      ['-t', 'email', '-c', 'not an address'],
      '--content: email content must be an address',
    ],
    [
      'low contrast',
      ['-c', 'https://example.com', '--fg', '#EEEEEE'],
      '--fg: Contrast between #EEEEEE and #FFFFFF',
    ],
    [
      'too much content',
      ['-t', 'text', '-c', 'x'.repeat(3000)],
      'Content is 3000 bytes encoded; at error-correction level M at most 2331 bytes fit',
    ],
    [
      'too much for level H',
      ['-t', 'text', '-c', 'x'.repeat(1500), '--ec', 'H'],
      'at error-correction level H at most 1273 bytes fit',
    ],
  ])('rejects %s as the server would, with its message (exit 1)', async (_, args, message) => {
    const res = await runCli(['render', ...args], { env: offline() })
    expect(res.code).toBe(1)
    expect(res.stdout).toBe('')
    expect(res.stderr).toContain(message)
  })
})
