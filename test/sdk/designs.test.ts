import { Asset as AssetSchema } from '@qrctl/contract'
import { type Qrctl, QrctlConflictError, QrctlUnscannableError, QrctlValidationError } from '@qrctl/sdk'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from '../support/server.js'
import { clientOfNewAccount } from './live.js'

let server: TestServer
let qrctl: Qrctl

beforeAll(async () => {
  server = await startServer()
  qrctl = await clientOfNewAccount(server)
})
afterAll(async () => {
  await server?.close()
})

describe('designs and assets through the SDK against a live server', () => {
  it('uploads a logo, uses it in a style, and refuses to delete it while used', async () => {
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#0D47A1' } })
      .png()
      .toBuffer()
    const logo = await qrctl.assets.create({
      name: 'logo',
      contentType: 'image/png',
      data: png.toString('base64'),
    })
    expect(AssetSchema.parse(logo)).toEqual(logo)
    expect(await qrctl.assets.get(logo.id)).toEqual(logo)
    const content = await qrctl.assets.content(logo.id)
    expect((await sharp(content).metadata()).width).toBe(64)
    const seen: string[] = []
    for await (const asset of qrctl.assets.listAll()) seen.push(asset.id)
    expect(seen).toContain(logo.id)

    const code = await qrctl.qrCodes.create({
      name: 'branded',
      contentType: 'url',
      content: 'https://example.com/menu/spring-2026?table=12',
      style: {
        moduleShape: 'rounded',
        finderShape: 'rounded',
        logo: { assetId: logo.id },
        frame: { style: 'banner', text: 'Menu' },
      },
    })
    expect(code.style?.errorCorrectionLevel).toBe('Q')
    await expect(qrctl.assets.delete(logo.id)).rejects.toBeInstanceOf(QrctlConflictError)
  })

  it('throws QrctlUnscannableError, a QrctlValidationError, with the checks', async () => {
    const error = await qrctl.qrCodes
      .create({
        name: 'x',
        contentType: 'text',
        content: 'hello',
        style: { margin: 0, frame: { style: 'box', text: 'Scan' } },
      })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(QrctlUnscannableError)
    expect(error).toBeInstanceOf(QrctlValidationError)
    expect((error as QrctlUnscannableError).checks.length).toBe(4)
  })
})
