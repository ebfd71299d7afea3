import { readFileSync } from 'node:fs'
import { describe, expectTypeOf, it } from 'vitest'
import type {
  Analytics,
  ApiKeyWithSecret,
  BatchResult,
  CreateApiKeyParams,
  CreateQrCodeParams,
  CreateShowcaseParams,
  QrCode,
  QrCodePage,
  Qrctl,
  Showcase,
} from './index.js'
import { SDK_VERSION } from './version.js'

describe('types inferred from the contract', () => {
  it('gives methods the contract types', () => {
    expectTypeOf<Qrctl['qrCodes']['get']>().returns.resolves.toEqualTypeOf<QrCode>()
    expectTypeOf<Qrctl['qrCodes']['list']>().returns.resolves.toEqualTypeOf<QrCodePage>()
    expectTypeOf<Qrctl['qrCodes']['batch']>().returns.resolves.toEqualTypeOf<BatchResult>()
    expectTypeOf<Qrctl['qrCodes']['analytics']>().returns.resolves.toEqualTypeOf<Analytics>()
    expectTypeOf<Qrctl['qrCodes']['image']>().returns.resolves.toEqualTypeOf<Uint8Array>()
    expectTypeOf<Qrctl['showcases']['create']>().returns.resolves.toEqualTypeOf<Showcase>()
    expectTypeOf<Qrctl['apiKeys']['create']>().returns.resolves.toEqualTypeOf<ApiKeyWithSecret>()
    expectTypeOf<QrCode['type']>().toEqualTypeOf<'static' | 'dynamic'>()
    expectTypeOf<QrCode['targetUrl']>().toEqualTypeOf<string | null>()
    expectTypeOf<BatchResult['items']>().toEqualTypeOf<QrCode[]>()
  })

  it('makes fields with a server default optional in requests', () => {
    expectTypeOf<{ name: string }>().toMatchTypeOf<CreateApiKeyParams>()
    expectTypeOf<{ qrCodeId: string; title: string }>().toMatchTypeOf<CreateShowcaseParams>()
    expectTypeOf<{ name: string; contentType: 'url'; content: string }>().toMatchTypeOf<CreateQrCodeParams>()
    expectTypeOf<{ name: string }>().not.toMatchTypeOf<CreateQrCodeParams>()
  })
})

describe('SDK_VERSION', () => {
  it('equals the package version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string
    }
    expectTypeOf(SDK_VERSION).toBeString()
    if (pkg.version !== SDK_VERSION)
      throw new Error(`version.ts says ${SDK_VERSION}, package.json ${pkg.version}`)
  })
})
