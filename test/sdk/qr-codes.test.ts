import { BatchResult as BatchResultSchema, QrCodeList, QrCode as QrCodeSchema } from '@qrctl/contract'
import { type CreateManyProgress, type Qrctl, QrctlConflictError, QrctlNotFoundError } from '@qrctl/sdk'
import jsQR from 'jsqr'
import { PNG } from 'pngjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from '../support/server.js'
import { clientOfNewAccount, textCodes } from './live.js'

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

describe('qrCodes against a live server', () => {
  it('creates a dynamic code, reads it back and retargets it', async () => {
    const code = await qrctl.qrCodes.create({
      name: 'Menu',
      contentType: 'url',
      content: 'https://example.com/menu',
      type: 'dynamic',
    })
    QrCodeSchema.parse(code)
    expect(code).toMatchObject({ type: 'dynamic', targetUrl: 'https://example.com/menu', isActive: true })
    expect(code.shortCode).toMatch(/^[A-Za-z0-9]{7}$/)
    expect(await qrctl.qrCodes.get(code.id)).toEqual(code)

    const retargeted = await qrctl.qrCodes.update(code.id, { targetUrl: 'https://example.com/summer' })
    expect(retargeted).toMatchObject({
      id: code.id,
      shortCode: code.shortCode,
      targetUrl: 'https://example.com/summer',
    })
    expect((await qrctl.qrCodes.get(code.id)).targetUrl).toBe('https://example.com/summer')
  })

  it('creates a static code with no short link', async () => {
    const code = await qrctl.qrCodes.create({ name: 'Hello', contentType: 'text', content: 'hello' })
    expect(code).toMatchObject({ type: 'static', shortCode: null, targetUrl: null, content: 'hello' })
  })

  it('lists one page with total, limit and offset, filtered by type', async () => {
    const client = await clientOfNewAccount(server)
    await client.qrCodes.createMany(textCodes(3))
    await client.qrCodes.create({
      name: 'd',
      contentType: 'url',
      content: 'https://example.com/d',
      type: 'dynamic',
    })
    const page = await client.qrCodes.list({ limit: 2, offset: 1 })
    QrCodeList.parse(page)
    expect(page).toMatchObject({ total: 4, limit: 2, offset: 1 })
    expect(page.data).toHaveLength(2)
    const dynamic = await client.qrCodes.list({ type: 'dynamic' })
    expect(dynamic.total).toBe(1)
    expect(dynamic.data[0]?.name).toBe('d')
    await client.close()
  })

  it('listAll walks every page of 250 codes, each once', async () => {
    const client = await clientOfNewAccount(server)
    const created = await client.qrCodes.createMany(textCodes(250, 'walk'))
    expect(created.created).toBe(250)
    const ids: string[] = []
    for await (const code of client.qrCodes.listAll()) ids.push(code.id)
    expect(ids).toHaveLength(250)
    expect(new Set(ids)).toEqual(new Set(created.items.map((code) => code.id)))
    const small: string[] = []
    for await (const code of client.qrCodes.listAll({ limit: 60, offset: 10 })) small.push(code.id)
    expect(small).toEqual(ids.slice(10))
    await client.close()
  })

  it('createMany sends any number of codes and reports errors by input index', async () => {
    const client = await clientOfNewAccount(server)
    const codes = textCodes(205, 'many')
    codes[3] = { ...codes[3]!, content: '' }
    codes[150] = { ...codes[150]!, name: '' }
    codes[204] = { ...codes[204]!, content: '' }
    const progress: CreateManyProgress[] = []
    const result = await client.qrCodes.createMany(codes, { onProgress: (p) => progress.push(p) })
    expect(result.created).toBe(202)
    expect(result.items).toHaveLength(202)
    expect(result.items.map((code) => code.name)).toEqual(
      codes.filter((_, n) => ![3, 150, 204].includes(n)).map((code) => code.name),
    )
    // One item may earn several strings (an empty content breaks two rules); failed counts items.
    const indexes = result.errors.map((error) => /^codes\[(\d+)\]/.exec(error)?.[1])
    expect([...new Set(indexes)]).toEqual(['3', '150', '204'])
    expect(result.errors.find((error) => error.startsWith('codes[150]'))).toMatch(/^codes\[150\]\.name: /)
    expect(progress).toEqual([
      { done: 100, total: 205, created: 99, failed: 1 },
      { done: 200, total: 205, created: 198, failed: 2 },
      { done: 205, total: 205, created: 202, failed: 3 },
    ])
    expect((await client.qrCodes.list()).total).toBe(202)
    await client.close()
  })

  it('batch creates the valid items, reports the invalid ones and creates nothing on dryRun', async () => {
    const client = await clientOfNewAccount(server)
    const codes = [
      ...textCodes(2, 'batch'),
      { name: 'bad', contentType: 'url' as const, content: 'not a url' },
    ]
    const dry = await client.qrCodes.batch(codes, { dryRun: true })
    expect(dry.items).toEqual([])
    expect(dry.errors).toHaveLength(1)
    expect((await client.qrCodes.list()).total).toBe(0)

    const result = await client.qrCodes.batch(codes, { idempotencyKey: 'batch-1' })
    BatchResultSchema.parse(result)
    expect(result.created).toBe(2)
    expect(result.errors).toEqual([expect.stringMatching(/^codes\[2\]\.content/)])
    expect(result.items.map((code) => code.name)).toEqual(['batch 0', 'batch 1'])
    expect(await client.qrCodes.batch(codes, { idempotencyKey: 'batch-1' })).toEqual(result)
    expect((await client.qrCodes.list()).total).toBe(2)
    await client.close()
  })

  it('finds a code by externalId, and a taken one throws QrctlConflictError naming the holder', async () => {
    const code = await qrctl.qrCodes.create({
      name: 'Ext',
      contentType: 'text',
      content: 'e',
      externalId: 'sdk-ext',
    })
    expect(code.externalId).toBe('sdk-ext')
    const page = await qrctl.qrCodes.list({ externalId: 'sdk-ext' })
    expect(page.data.map((c) => c.id)).toEqual([code.id])
    const error = await qrctl.qrCodes
      .create({ name: 'Ext 2', contentType: 'text', content: 'f', externalId: 'sdk-ext' })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(QrctlConflictError)
    expect((error as QrctlConflictError).details.existingId).toBe(code.id)
    // The batch reports it as that item's error; batches() says it was sent, not replayed.
    const answers = []
    for await (const batch of qrctl.qrCodes.batches([
      { name: 'Ext 3', contentType: 'text', content: 'g', externalId: 'sdk-ext' },
      { name: 'Ext 4', contentType: 'text', content: 'h', externalId: 'sdk-ext-4' },
    ]))
      answers.push(batch)
    expect(answers.map((a) => [a.source, a.result.created, a.result.errors])).toEqual([
      ['sent', 1, [`codes[0].externalId: This externalId is already used by QR code ${code.id}`]],
    ])
    expect((await qrctl.qrCodes.update(code.id, { externalId: null })).externalId).toBeNull()
  })

  it('lists deleted codes with deletedAt and purgeAt, and finds a code by short code', async () => {
    const code = await qrctl.qrCodes.create({
      name: 'Gone',
      contentType: 'url',
      content: 'https://example.com/g',
      type: 'dynamic',
    })
    expect((await qrctl.qrCodes.list({ shortCode: code.shortCode ?? '' })).data.map((c) => c.id)).toEqual([
      code.id,
    ])
    await qrctl.qrCodes.delete(code.id)
    const deleted = await qrctl.qrCodes.list({ deleted: true })
    const listed = deleted.data.find((c) => c.id === code.id)
    expect(listed?.deletedAt).toBeDefined()
    expect(Date.parse(listed?.purgeAt ?? '') - Date.parse(listed?.deletedAt ?? '')).toBe(30 * 86_400_000)
    QrCodeList.parse(deleted)
  })

  it('deletes a code and restores it', async () => {
    const code = await qrctl.qrCodes.create({ name: 'Gone', contentType: 'text', content: 'soon gone' })
    expect(await qrctl.qrCodes.delete(code.id)).toEqual({ success: true })
    await expect(qrctl.qrCodes.get(code.id)).rejects.toThrow(QrctlNotFoundError)
    const restored = await qrctl.qrCodes.restore(code.id)
    expect(restored).toMatchObject({ id: code.id, name: 'Gone' })
    expect((await qrctl.qrCodes.get(code.id)).id).toBe(code.id)
  })

  it('renders PNG, SVG and PDF bytes; the PNG scans to the short link', async () => {
    const code = await qrctl.qrCodes.create({
      name: 'Scan me',
      contentType: 'url',
      content: 'https://example.com/scan',
      type: 'dynamic',
    })
    const png = await qrctl.qrCodes.image(code.id, { format: 'png', size: 256 })
    expect(png).toBeInstanceOf(Uint8Array)
    const image = PNG.sync.read(Buffer.from(png))
    expect(image.width).toBe(256)
    const decoded = jsQR.default(new Uint8ClampedArray(image.data), image.width, image.height)
    expect(decoded?.data).toBe(code.shortUrl)

    const svg = new TextDecoder().decode(await qrctl.qrCodes.image(code.id, { format: 'svg' }))
    expect(svg).toMatch(/<svg[\s>]/)
    const pdf = await qrctl.qrCodes.image(code.id, { format: 'pdf' })
    expect(new TextDecoder().decode(pdf.slice(0, 5))).toBe('%PDF-')
  })

  it('reads the analytics of a code for a period, scans included', async () => {
    const code = await qrctl.qrCodes.create({
      name: 'Counted',
      contentType: 'url',
      content: 'https://example.com/counted',
      type: 'dynamic',
    })
    const week = await qrctl.qrCodes.analytics(code.id, { period: '7d' })
    expect(week).toMatchObject({ totalEvents: 0, uniqueVisitors: 0, topCountries: [] })
    expect(week.eventsByDay).toHaveLength(7)
    expect(week.eventsByDay.every((day) => day.count === 0)).toBe(true)
    const month = await qrctl.qrCodes.analytics(code.id)
    expect(month.eventsByDay).toHaveLength(30)

    // One scan of the printed short link shows up (scans are written at least once a second).
    const iphone =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1'
    const scan = await fetch(code.shortUrl!, { redirect: 'manual', headers: { 'user-agent': iphone } })
    expect(scan.status).toBeGreaterThanOrEqual(300)
    expect(scan.headers.get('location')).toBe('https://example.com/counted')
    await expect
      .poll(async () => (await qrctl.qrCodes.analytics(code.id, { period: 'all' })).totalEvents, {
        timeout: 5_000,
      })
      .toBe(1)
    const all = await qrctl.qrCodes.analytics(code.id, { period: 'all' })
    expect(all).toMatchObject({ uniqueVisitors: 1, topDevices: [{ name: 'mobile', count: 1 }] })
    expect((await qrctl.qrCodes.get(code.id)).totalScans).toBe(1)
  })
})
