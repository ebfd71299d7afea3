import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Style } from '@qrctl/contract'
import { Qrctl } from '@qrctl/sdk'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from '../support/server.js'
import { apiEnv, buildCli, type Home, runCli, tempHome } from './support/cli.js'
import { decodePng } from './support/qr.js'

/** DESIGN §13 in the CLI: every style key as a flag, `--style FILE.json`, `--logo FILE`. */

let server: TestServer
let home: Home
let env: Record<string, string>
let sdk: Qrctl

beforeAll(async () => {
  buildCli()
  server = await startServer()
  home = tempHome()
  env = apiEnv(home, server, server.apiKey)
  sdk = new Qrctl({ apiKey: server.apiKey, baseUrl: server.baseUrl })
}, 180_000)
afterAll(async () => {
  await sdk.close()
  await server.close()
  home.cleanup()
})

const DESIGN_FLAGS = [
  '--module-shape',
  'dot',
  '--finder-shape',
  'rounded',
  '--finder-dot-shape',
  'circle',
  '--finder-color',
  '#B71C1C',
  '--gradient',
  'linear:#1A237E,#4A148C:90',
  '--frame-text',
  'Scan for the menu',
  '--frame-style',
  'box',
]
const DESIGN: Style = {
  moduleShape: 'dot',
  finderShape: 'rounded',
  finderDotShape: 'circle',
  finderColor: '#B71C1C',
  gradient: { type: 'linear', colors: ['#1A237E', '#4A148C'], rotation: 90 },
  frame: { style: 'box', text: 'Scan for the menu' },
}

describe('create with design flags', () => {
  it('uploads --logo FILE as an asset and stores every key', async () => {
    const logo = join(home.dir, 'logo.png')
    writeFileSync(
      logo,
      await sharp({ create: { width: 80, height: 80, channels: 3, background: '#C62828' } })
        .png()
        .toBuffer(),
    )
    const res = await runCli(
      [
        'create',
        '--name',
        'Branded',
        '--content',
        'https://example.com/menu/spring-2026?table=12',
        ...DESIGN_FLAGS,
        '--logo',
        logo,
        '--json',
      ],
      { env },
    )
    expect(res.code, res.stderr).toBe(0)
    const code = JSON.parse(res.stdout)
    expect(code.style).toMatchObject({ ...DESIGN, errorCorrectionLevel: 'Q' })
    const asset = await sdk.assets.get(code.style.logo.assetId)
    expect(asset).toMatchObject({ name: 'logo.png', width: 80, height: 80 })
  })

  it('reads --style FILE.json, flags overriding its keys', async () => {
    const file = join(home.dir, 'brand.json')
    writeFileSync(file, JSON.stringify({ moduleShape: 'rounded', foregroundColor: '#0D47A1' }))
    const res = await runCli(
      [
        'create',
        '--name',
        'S',
        '-t',
        'text',
        '--content',
        'hello',
        '--style',
        file,
        '--fg',
        '#000',
        '--json',
      ],
      { env },
    )
    expect(res.code, res.stderr).toBe(0)
    expect(JSON.parse(res.stdout).style).toEqual({ moduleShape: 'rounded', foregroundColor: '#000' })
  })

  it('exits 1 naming the decode check when the design does not scan', async () => {
    const res = await runCli(
      [
        'create',
        '--name',
        'Bad',
        '-t',
        'text',
        '--content',
        'hi',
        '--margin',
        '0',
        '--frame-text',
        'x',
        '--frame-style',
        'box',
      ],
      { env },
    )
    expect(res.code).toBe(1)
    expect(res.stdout).toBe('')
    expect(res.stderr).toMatch(/scan/i)
  })

  it('names the flag of a bad value', async () => {
    const res = await runCli(
      ['create', '--name', 'x', '--content', 'https://example.com', '--gradient', 'conic:#000'],
      {
        env,
      },
    )
    expect(res.code).not.toBe(0)
    expect(res.stderr).toContain('--gradient')
  })
})

describe('batch --style', () => {
  it('applies one style to every row, a row’s style columns overriding it', async () => {
    const style = join(home.dir, 'batch-style.json')
    writeFileSync(
      style,
      JSON.stringify({ moduleShape: 'rounded', frame: { style: 'banner', text: 'Scan me' } }),
    )
    const text = ['name,contentType,content,moduleShape', 'A,text,first,', 'B,text,second,dot', ''].join('\n')
    const res = await runCli(['batch', '-', '--style', style, '--json'], { env, input: text })
    expect(res.code, res.stderr).toBe(0)
    const report = JSON.parse(res.stdout) as { rows: { code?: { style: Style } }[] }
    expect(report.rows.map((r) => r.code?.style)).toEqual([
      { moduleShape: 'rounded', frame: { style: 'banner', text: 'Scan me' } },
      { moduleShape: 'dot', frame: { style: 'banner', text: 'Scan me' } },
    ])
  })
})

describe('render (offline) with a design', () => {
  const offline = () => ({ ...home.env, QRCTL_BASE_URL: 'http://127.0.0.1:9' })

  it('gives the same PNG, SVG and PDF bytes as the server for the same static code', async () => {
    const content = 'https://example.com/spring'
    const code = await sdk.qrCodes.create({ name: 'same', contentType: 'url', content, style: DESIGN })
    for (const format of ['png', 'svg', 'pdf'] as const) {
      const file = join(home.dir, `same.${format}`)
      const res = await runCli(
        [
          'render',
          '--content',
          content,
          ...DESIGN_FLAGS,
          '-o',
          file,
          ...(format === 'png' ? ['--size', '512'] : []),
        ],
        {
          env: offline(),
        },
      )
      expect(res.code, res.stderr).toBe(0)
      const served = await sdk.qrCodes.image(code.id, { format, ...(format === 'png' ? { size: 512 } : {}) })
      expect(Buffer.from(readFileSync(file)).equals(Buffer.from(served)), format).toBe(true)
    }
    expect(decodePng(readFileSync(join(home.dir, 'same.png')))).toBe(content)
  })

  it('draws a PNG --logo offline', async () => {
    const logo = join(home.dir, 'offline-logo.png')
    writeFileSync(
      logo,
      await sharp({ create: { width: 40, height: 40, channels: 3, background: '#2E7D32' } })
        .png()
        .toBuffer(),
    )
    const file = join(home.dir, 'logo.png')
    const content = 'https://example.com/menu/spring-2026?table=12'
    const res = await runCli(['render', '--content', content, '--logo', logo, '-o', file], { env: offline() })
    expect(res.code, res.stderr).toBe(0)
    expect(decodePng(readFileSync(file))).toBe(content)
  })
})
