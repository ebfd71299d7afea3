import { describe, expect, it } from 'vitest'
import { API_KEY, fakeFetch, json, qrCode } from '../test/fake-fetch.js'
import { type CreateManyProgress, type QrCode, Qrctl } from './index.js'

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`
const code = (n: number) => qrCode({ id: uuid(n), name: `code ${n}` }) as QrCode

describe('qrCodes.listAll', () => {
  it('walks every page, 100 at a time, and yields each code once', async () => {
    const codes = Array.from({ length: 230 }, (_, n) => code(n))
    const page = (list: QrCode[], offset: number) =>
      json(200, { data: list.slice(offset, offset + 100), total: list.length, limit: 100, offset })
    // A code created during the walk shifts the list down: page 2 starts with one already seen.
    const grown = [code(999), ...codes]
    const fetch = fakeFetch(page(codes, 0), page(grown, 100), page(grown, 200))
    const seen: string[] = []
    for await (const item of new Qrctl({ apiKey: API_KEY, fetch }).qrCodes.listAll({ type: 'dynamic' })) {
      seen.push(item.id)
    }
    expect(seen).toEqual(codes.map((c) => c.id))
    expect(fetch.calls.map((call) => new URL(call.url).search)).toEqual([
      '?type=dynamic&limit=100&offset=0',
      '?type=dynamic&limit=100&offset=100',
      '?type=dynamic&limit=100&offset=200',
    ])
  })

  it('stops after the last page without an extra request', async () => {
    const fetch = fakeFetch(json(200, { data: [code(1), code(2)], total: 2, limit: 100, offset: 0 }))
    const items = []
    for await (const item of new Qrctl({ apiKey: API_KEY, fetch }).qrCodes.listAll()) items.push(item)
    expect(items).toHaveLength(2)
    expect(fetch.calls).toHaveLength(1)
  })
})

describe('qrCodes.createMany', () => {
  it('sends batches of 100 and reports indexes of the whole input', async () => {
    const input = Array.from({ length: 250 }, (_, n) => ({
      name: `c${n}`,
      contentType: 'text' as const,
      content: 'x',
    }))
    const answer = (created: number, errors: string[]) =>
      json(201, { data: { created, errors, items: Array.from({ length: created }, (_, n) => code(n)) } })
    const fetch = fakeFetch(
      answer(99, ['codes[3].content: bad']),
      answer(100, []),
      answer(48, ['codes[0].name: bad', 'codes[49].content: bad', 'codes[49].name: bad']),
    )
    const progress: CreateManyProgress[] = []
    const qrctl = new Qrctl({ apiKey: API_KEY, fetch })
    const result = await qrctl.qrCodes.createMany(input, {
      onProgress: (p) => progress.push(p),
      idempotencyKeyPrefix: 'import-7',
    })
    expect(result.created).toBe(247)
    expect(result.items).toHaveLength(247)
    expect(result.errors).toEqual([
      'codes[3].content: bad',
      'codes[200].name: bad',
      'codes[249].content: bad',
      'codes[249].name: bad',
    ])
    expect(progress).toEqual([
      { done: 100, total: 250, created: 99, failed: 1 },
      { done: 200, total: 250, created: 199, failed: 1 },
      { done: 250, total: 250, created: 247, failed: 3 },
    ])
    const bodies = fetch.calls.map((call) => JSON.parse(call.body ?? '{}').codes)
    expect(bodies.map((codes) => codes.length)).toEqual([100, 100, 50])
    expect(bodies[2][0]).toEqual(input[200])
    expect(fetch.calls.map((call) => call.headers['idempotency-key'])).toEqual([
      'import-7-0',
      'import-7-1',
      'import-7-2',
    ])
  })

  it('makes no request for an empty input and passes dryRun on', async () => {
    const fetch = fakeFetch(json(201, { data: { created: 0, errors: [], items: [] } }))
    const qrctl = new Qrctl({ apiKey: API_KEY, fetch })
    expect(await qrctl.qrCodes.createMany([])).toEqual({ created: 0, errors: [], items: [] })
    await qrctl.qrCodes.createMany([{ name: 'a', contentType: 'text', content: 'x' }], { dryRun: true })
    expect(fetch.calls).toHaveLength(1)
    expect(fetch.calls[0]?.url).toBe('http://localhost:3000/api/v1/qr-codes/batch?dryRun=true')
  })
})

describe('showcases and apiKeys', () => {
  it('reach their routes and unwrap the answers', async () => {
    const key = { id: uuid(9), name: 'CI', secret: 'qrk_x' }
    const fetch = fakeFetch(
      json(200, { data: [], total: 0, limit: 50, offset: 0 }),
      json(200, { data: [key] }),
      json(201, { data: key }),
      json(200, { success: true }),
    )
    const qrctl = new Qrctl({ apiKey: API_KEY, fetch })
    expect(await qrctl.showcases.list({ qrCodeId: uuid(1) })).toMatchObject({ total: 0 })
    expect(await qrctl.apiKeys.list()).toEqual([key])
    expect(await qrctl.apiKeys.rotate(uuid(9), { gracePeriodSeconds: 60 })).toEqual(key)
    expect(await qrctl.apiKeys.revoke(uuid(9))).toEqual({ success: true })
    expect(
      fetch.calls.map((call) => `${call.method} ${new URL(call.url).pathname}${new URL(call.url).search}`),
    ).toEqual([
      `GET /api/v1/showcases?qrCodeId=${uuid(1)}`,
      'GET /api/v1/api-keys',
      `POST /api/v1/api-keys/${uuid(9)}/rotate`,
      `DELETE /api/v1/api-keys/${uuid(9)}`,
    ])
    expect(JSON.parse(fetch.calls[2]?.body ?? '')).toEqual({ gracePeriodSeconds: 60 })
  })
})
