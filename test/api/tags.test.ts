import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import {
  type Api,
  api,
  createCode,
  dynamicCode,
  expectError,
  MISSING_ID,
  textCode,
  UNLIMITED,
} from './helpers.js'

const issuePaths = (body: { details: { issues: { path: string }[] } }) =>
  body.details.issues.map((issue) => issue.path)

describe.each(dialects())('tags on %s', (dialect) => {
  let server: TestServer

  beforeAll(async () => {
    server = await startServer({ dialect, env: UNLIMITED })
  })
  afterAll(() => server.close())

  async function freshClient(): Promise<Api> {
    return api(server, (await server.createAccount()).apiKey)
  }

  describe('happy', () => {
    it('normalises tags on create: trimmed, lower-cased, duplicates dropped, code-point order', async () => {
      const client = await freshClient()
      const code = await createCode(
        client,
        textCode({ tags: [' Spring ', 'menu', 'SPRING', 'a:b', 'z_1', 'table 4'] }),
      )
      expect(code.tags).toEqual(['a:b', 'menu', 'spring', 'table 4', 'z_1'])
      expect((await client.get(`/qr-codes/${code.id}`)).body.data.tags).toEqual(code.tags)
    })

    it('answers tags: [] for a code without tags, in reads and lists', async () => {
      const client = await freshClient()
      const code = await createCode(client)
      expect(code.tags).toEqual([])
      expect((await client.get('/qr-codes')).body.data[0].tags).toEqual([])
    })

    it('accepts 21 tags that are 20 once duplicates are dropped, and 40-character tags', async () => {
      const client = await freshClient()
      const twenty = Array.from({ length: 20 }, (_, i) => `t${String(i).padStart(2, '0')}`)
      const code = await createCode(
        client,
        textCode({ tags: [...twenty, 'T00', 'x'.repeat(40).toUpperCase()].slice(0, 21) }),
      )
      expect(code.tags).toEqual(twenty)
      const long = await createCode(client, textCode({ tags: ['x'.repeat(40)] }))
      expect(long.tags).toEqual(['x'.repeat(40)])
    })

    it('tags the codes of a batch, per item', async () => {
      const client = await freshClient()
      const res = await client.post('/qr-codes/batch', {
        codes: [textCode({ tags: ['B', 'a'] }), textCode(), textCode({ tags: ['bad!'] })],
      })
      expect(res.status).toBe(201)
      expect(res.body.data.items.map((c: { tags: string[] }) => c.tags)).toEqual([['a', 'b'], []])
      expect(res.body.data.errors).toEqual([expect.stringMatching(/^codes\[2\]\.tags\.0: A tag holds only/)])
    })

    it('replaces the tags by PATCH, [] removes them all, and leaves them alone when not sent', async () => {
      const client = await freshClient()
      const code = await createCode(client, dynamicCode({ tags: ['old'] }))
      const renamed = await client.patch(`/qr-codes/${code.id}`, { name: 'renamed' })
      expect(renamed.body.data.tags).toEqual(['old'])
      const retagged = await client.patch(`/qr-codes/${code.id}`, { tags: ['New', 'other'] })
      expect(retagged.status).toBe(200)
      expect(retagged.body.data.tags).toEqual(['new', 'other'])
      expect((await client.get('/qr-codes?tag=old')).body.total).toBe(0)
      expect((await client.get('/qr-codes?tag=new')).body.total).toBe(1)
      const cleared = await client.patch(`/qr-codes/${code.id}`, { tags: [] })
      expect(cleared.body.data.tags).toEqual([])
      expect((await client.get('/tags')).body).toEqual({ data: [] })
    })

    it('lists tags by name with counts of codes not deleted, inactive ones included', async () => {
      const client = await freshClient()
      await createCode(client, textCode({ tags: ['spring', 'menu'] }))
      const paused = await createCode(client, dynamicCode({ tags: ['spring'] }))
      await client.patch(`/qr-codes/${paused.id}`, { isActive: false })
      const gone = await createCode(client, textCode({ tags: ['spring', 'gone'] }))
      expect((await client.delete(`/qr-codes/${gone.id}`)).status).toBe(200)
      const res = await client.get('/tags')
      expect(res.status).toBe(200)
      expect(res.body).toEqual({
        data: [
          { name: 'menu', count: 1 },
          { name: 'spring', count: 2 },
        ],
      })
      // A restored code's tags count again.
      expect((await client.post(`/qr-codes/${gone.id}/restore`)).status).toBe(200)
      expect((await client.get('/tags')).body.data).toEqual([
        { name: 'gone', count: 1 },
        { name: 'menu', count: 1 },
        { name: 'spring', count: 3 },
      ])
    })
  })

  describe('errors', () => {
    it.each([
      [['bad!'], 'tags.0'],
      [[''], 'tags.0'],
      [['   '], 'tags.0'],
      [['x'.repeat(41)], 'tags.0'],
      [['ok', 'émoji'], 'tags.1'],
      [Array.from({ length: 21 }, (_, i) => `t${i}`), 'tags'],
      ['spring', 'tags'],
      [[1], 'tags.0'],
    ])('answers 400 naming the field for tags %j', async (tags, path) => {
      const client = await freshClient()
      const res = await client.post('/qr-codes', { ...textCode(), tags })
      expectError(res, 400, 'validation_error')
      expect(issuePaths(res.body)).toContain(path)
      const code = await createCode(client)
      const patch = await client.patch(`/qr-codes/${code.id}`, { tags })
      expectError(patch, 400, 'validation_error')
      expect(issuePaths(patch.body)).toContain(path)
    })
  })

  describe('security', () => {
    it('never counts another account’s tags', async () => {
      const a = await freshClient()
      const b = await freshClient()
      await createCode(a, textCode({ tags: ['secret'] }))
      expect((await b.get('/tags')).body).toEqual({ data: [] })
    })

    it('answers 404 to a PATCH of tags on another account’s code', async () => {
      const a = await freshClient()
      const b = await freshClient()
      const code = await createCode(a, textCode({ tags: ['mine'] }))
      expectError(await b.patch(`/qr-codes/${code.id}`, { tags: ['theirs'] }), 404, 'not_found')
      expectError(await b.patch(`/qr-codes/${MISSING_ID}`, { tags: ['theirs'] }), 404, 'not_found')
      expect((await a.get(`/qr-codes/${code.id}`)).body.data.tags).toEqual(['mine'])
    })

    it('answers 403 insufficient_scope to GET /tags with a write-only key', async () => {
      const writer = await server.createAccount({ scope: 'write' })
      expectError(await api(server, writer.apiKey).get('/tags'), 403, 'insufficient_scope')
      const reader = await server.createAccount({ scope: 'read' })
      expect((await api(server, reader.apiKey).get('/tags')).status).toBe(200)
    })
  })
})
