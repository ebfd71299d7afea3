import { ApiKey as ApiKeySchema, ApiKeyWithSecret as ApiKeyWithSecretSchema } from '@qrctl/contract'
import { Qrctl, QrctlAuthenticationError } from '@qrctl/sdk'
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

const clientFor = (apiKey: string) => new Qrctl({ apiKey, baseUrl: server.baseUrl, maxRetries: 0 })

describe('apiKeys against a live server', () => {
  it('creates a key whose secret works, and lists keys without secrets', async () => {
    const key = await qrctl.apiKeys.create({ name: 'CI', environment: 'staging', scope: 'read' })
    ApiKeyWithSecretSchema.parse(key)
    expect(key).toMatchObject({ name: 'CI', environment: 'staging', scope: 'read' })
    expect(key.secret).toMatch(/^qrk_[A-Za-z0-9]{40}$/)
    expect((await clientFor(key.secret).qrCodes.list()).total).toBe(0)

    const keys = await qrctl.apiKeys.list()
    for (const listed of keys) ApiKeySchema.parse(listed)
    const listed = keys.find((k) => k.id === key.id)
    expect(listed).toMatchObject({
      name: 'CI',
      prefix: key.secret.slice(0, 8),
      lastFour: key.secret.slice(-4),
    })
    expect(listed).not.toHaveProperty('secret')
  })

  it('revokes a key: it stops working at once', async () => {
    const key = await qrctl.apiKeys.create({ name: 'temporary' })
    expect(key.scope).toBe('read_write')
    await clientFor(key.secret).qrCodes.list()
    expect(await qrctl.apiKeys.revoke(key.id)).toEqual({ success: true })
    await expect(clientFor(key.secret).qrCodes.list()).rejects.toThrow(QrctlAuthenticationError)
    expect((await qrctl.apiKeys.list()).map((k) => k.id)).not.toContain(key.id)
  })

  it('rotates a key at once, or with a grace period for the old one', async () => {
    const key = await qrctl.apiKeys.create({ name: 'deploy', environment: 'production' })
    const rotated = await qrctl.apiKeys.rotate(key.id)
    expect(rotated).toMatchObject({ name: 'deploy', environment: 'production', scope: 'read_write' })
    expect(rotated.secret).not.toBe(key.secret)
    await clientFor(rotated.secret).qrCodes.list()
    await expect(clientFor(key.secret).qrCodes.list()).rejects.toThrow(QrctlAuthenticationError)

    const graced = await qrctl.apiKeys.rotate(rotated.id, { gracePeriodSeconds: 3600 })
    await clientFor(graced.secret).qrCodes.list()
    await clientFor(rotated.secret).qrCodes.list()
    const old = (await qrctl.apiKeys.list()).find((k) => k.id === rotated.id)
    expect(old?.expiresAt).not.toBeNull()
  })
})
