import { Showcase as ShowcaseSchema } from '@qrctl/contract'
import { type QrCode, type Qrctl, QrctlConflictError, QrctlNotFoundError } from '@qrctl/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from '../support/server.js'
import { clientOfNewAccount } from './live.js'

let server: TestServer
let qrctl: Qrctl
let code: QrCode

beforeAll(async () => {
  server = await startServer()
  qrctl = await clientOfNewAccount(server)
  code = await qrctl.qrCodes.create({
    name: 'Menu',
    contentType: 'url',
    content: 'https://example.com/menu',
    type: 'dynamic',
  })
})
afterAll(async () => {
  await server?.close()
})

describe('showcases against a live server', () => {
  it('creates a showcase with a slug from its title and reads it back', async () => {
    const page = await qrctl.showcases.create({ qrCodeId: code.id, title: 'Spring Menu', template: 'modern' })
    ShowcaseSchema.parse(page)
    expect(page).toMatchObject({
      qrCodeId: code.id,
      title: 'Spring Menu',
      template: 'modern',
      showBranding: true,
    })
    expect(page.slug).toMatch(/^spring-menu/)
    expect(page.url).toBe(`${server.baseUrl}/s/${page.slug}`)
    expect(await qrctl.showcases.get(page.id)).toEqual(page)
  })

  it('lists showcases, one page or all, filtered by code', async () => {
    const other = await qrctl.qrCodes.create({ name: 'Other', contentType: 'text', content: 'other' })
    const mine = await qrctl.showcases.create({ qrCodeId: other.id, title: 'Other page' })
    const page = await qrctl.showcases.list({ qrCodeId: other.id })
    expect(page).toMatchObject({ total: 1, offset: 0 })
    expect(page.data.map((s) => s.id)).toEqual([mine.id])
    const all = []
    for await (const showcase of qrctl.showcases.listAll({ limit: 1 })) all.push(showcase.id)
    expect(all).toContain(mine.id)
    expect(all.length).toBe((await qrctl.showcases.list()).total)
  })

  it('updates links and buttons, and answers 409 for a slug that is taken', async () => {
    const first = await qrctl.showcases.create({
      qrCodeId: code.id,
      title: 'First',
      slug: `first-${Date.now()}`,
    })
    const second = await qrctl.showcases.create({ qrCodeId: code.id, title: 'Second' })
    const updated = await qrctl.showcases.update(second.id, {
      socialLinks: [{ platform: 'instagram', url: 'https://instagram.com/example' }],
      ctaButtons: [{ label: 'Order', url: 'https://example.com/order' }],
      isActive: false,
    })
    expect(updated).toMatchObject({
      isActive: false,
      socialLinks: [{ platform: 'instagram', url: 'https://instagram.com/example' }],
      ctaButtons: [{ label: 'Order', url: 'https://example.com/order' }],
    })
    const error = await qrctl.showcases.update(second.id, { slug: first.slug }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(QrctlConflictError)
    expect(error).toMatchObject({ status: 409, code: 'conflict' })
  })

  it('deletes a showcase', async () => {
    const page = await qrctl.showcases.create({ qrCodeId: code.id, title: 'Short lived' })
    expect(await qrctl.showcases.delete(page.id)).toEqual({ success: true })
    await expect(qrctl.showcases.get(page.id)).rejects.toThrow(QrctlNotFoundError)
  })
})
