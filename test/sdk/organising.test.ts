import { type Qrctl, QrctlValidationError } from '@qrctl/sdk'
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
  await qrctl?.close()
  await server?.close()
})

const text = (name: string, tags: string[] = []) => ({
  name,
  contentType: 'text' as const,
  content: name,
  tags,
})

describe('tags, search, sort and bulk changes through the SDK', () => {
  it('lists with every filter, sends several tags as a repeated parameter, and pages them all with listAll', async () => {
    const made = []
    for (let i = 0; i < 7; i++)
      made.push(await qrctl.qrCodes.create(text(`Table ${i} 50%`, i % 2 ? ['spring', 'vip'] : ['spring'])))
    const page = await qrctl.qrCodes.list({ tag: ['spring', 'VIP'], search: '50%', sort: 'name', limit: 2 })
    expect(page.total).toBe(3)
    expect(page.data.map((c) => c.name)).toEqual(['Table 1 50%', 'Table 3 50%'])
    const all = []
    for await (const code of qrctl.qrCodes.listAll({
      tag: ['spring'],
      sort: '-name',
      isActive: true,
      limit: 3,
    }))
      all.push(code.name)
    expect(all).toEqual(made.map((c) => c.name).reverse())
    expect(await qrctl.tags.list()).toEqual([
      { name: 'spring', count: 7 },
      { name: 'vip', count: 3 },
    ])
  })

  it('changes, deletes and restores codes in bulk, with per-id errors', async () => {
    const a = await qrctl.qrCodes.create(text('bulk a'))
    const b = await qrctl.qrCodes.create(text('bulk b'))
    const missing = '00000000-0000-4000-8000-000000000000'
    const updated = await qrctl.qrCodes.bulkUpdate({
      ids: [a.id, b.id, missing],
      set: { isActive: false },
      addTags: ['Paused'],
    })
    expect(updated).toEqual({ updated: 2, errors: ['ids[2]: not found'] })
    expect((await qrctl.qrCodes.get(a.id)).tags).toEqual(['paused'])
    expect(await qrctl.qrCodes.bulkDelete([a.id, b.id])).toEqual({ deleted: 2, errors: [] })
    expect(await qrctl.qrCodes.bulkRestore([a.id, b.id])).toEqual({ restored: 2, errors: [] })
    await expect(qrctl.qrCodes.bulkUpdate({ ids: [a.id] })).rejects.toBeInstanceOf(QrctlValidationError)
  })
})
