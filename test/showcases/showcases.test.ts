import type { QrCode, Showcase } from '@qrctl/contract'
import { ManualClock, runHousekeeping } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { api, createCode, createShowcase, getShowcase, updateShowcase, visit } from './helpers.js'

type ErrorBody = { error: string; details: { message: string; issues?: { path: string; message: string }[] } }
type List = { data: Showcase[]; total: number; limit: number; offset: number }

describe.each(dialects())('showcases API on %s', (dialect) => {
  let server: TestServer
  let code: QrCode
  const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'))
  /** Every create happens a second after the one before: list order is by createdAt. */
  const tick = () => clock.advance(1000)

  beforeAll(async () => {
    // Far more calls than one key may make in a minute: lift the limit for this suite.
    server = await startServer({ dialect, clock, env: { RATE_LIMIT_PER_MINUTE: '100000' } })
    code = await createCode(server)
  })
  afterAll(async () => {
    await server?.close()
  })

  describe('happy', () => {
    it('creates a showcase with every default filled in', async () => {
      tick()
      const res = await api<{ data: Showcase }>(server, 'POST', '/showcases', {
        body: { qrCodeId: code.id, title: 'Spring Menu' },
      })
      expect(res.status).toBe(201)
      expect(res.body.data).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        qrCodeId: code.id,
        title: 'Spring Menu',
        slug: 'spring-menu',
        description: null,
        template: 'minimal',
        customColors: null,
        customBackgroundUrl: null,
        logoUrl: null,
        socialLinks: null,
        ctaButtons: null,
        showBranding: true,
        isActive: true,
        viewCount: 0,
        downloadCount: 0,
        createdAt: clock.now().toISOString(),
        url: `${server.baseUrl}/s/spring-menu`,
      })
    })

    it('stores every field it is given and reads it back', async () => {
      tick()
      const input = {
        qrCodeId: code.id,
        title: 'Harbour Café',
        slug: 'harbour-cafe-2026',
        description: 'Fresh fish,\nevery morning.',
        template: 'dark',
        customColors: { primary: '#0ea5e9', secondary: '#1e293b', background: '#020617', text: '#f8fafc' },
        customBackgroundUrl: 'https://images.example.com/harbour.jpg',
        logoUrl: 'https://images.example.com/logo.png',
        showBranding: false,
      }
      const created = await createShowcase(server, input)
      const { qrCodeId, ...rest } = input
      expect(created).toMatchObject({ ...rest, qrCodeId, url: `${server.baseUrl}/s/harbour-cafe-2026` })
      expect(await getShowcase(server, created.id)).toEqual(created)
    })

    it('derives the slug from the title: accents folded, other characters one dash, trimmed', async () => {
      tick()
      const a = await createShowcase(server, {
        qrCodeId: code.id,
        title: '  Crème Brûlée & Café — Straße!  ',
      })
      expect(a.slug).toBe('creme-brulee-cafe-strasse')
      tick()
      const b = await createShowcase(server, { qrCodeId: code.id, title: '🍕' })
      expect(b.slug).toBe('showcase')
      tick()
      const c = await createShowcase(server, { qrCodeId: code.id, title: 'Q' })
      expect(c.slug).toBe('q-showcase')
    })

    it('adds -2, -3 … when the derived slug is taken', async () => {
      const slugs: string[] = []
      for (let i = 0; i < 3; i++) {
        tick()
        slugs.push((await createShowcase(server, { qrCodeId: code.id, title: 'Open Day' })).slug)
      }
      expect(slugs).toEqual(['open-day', 'open-day-2', 'open-day-3'])
    })

    it('shortens long titles to 64 characters, suffix included', async () => {
      const title = `${'Grand Opening of the Riverside Bakery and Coffee Roastery '.repeat(3)}`
      tick()
      const first = await createShowcase(server, { qrCodeId: code.id, title })
      tick()
      const second = await createShowcase(server, { qrCodeId: code.id, title })
      expect(first.slug.length).toBeLessThanOrEqual(64)
      expect(first.slug).toMatch(/^grand-opening-of-the-riverside-bakery[a-z0-9-]*[a-z0-9]$/)
      expect(second.slug.length).toBeLessThanOrEqual(64)
      expect(second.slug).toMatch(/-2$/)
      expect(second.slug.slice(0, 40)).toBe(first.slug.slice(0, 40))
    })

    it('gives concurrent creates of one title different slugs', async () => {
      const made = await Promise.all(
        [1, 2, 3].map(() => createShowcase(server, { qrCodeId: code.id, title: 'Race Condition' })),
      )
      expect(new Set(made.map((s) => s.slug)).size).toBe(3)
    })

    it('lists newest first with limit, offset, total and the qrCodeId filter', async () => {
      const other = await createCode(server)
      const mine: Showcase[] = []
      for (const title of ['List One', 'List Two', 'List Three']) {
        tick()
        mine.push(await createShowcase(server, { qrCodeId: other.id, title }))
      }
      const all = await api<List>(server, 'GET', '/showcases?limit=100')
      expect(all.status).toBe(200)
      const times = all.body.data.map((s) => s.createdAt)
      expect(times).toEqual([...times].sort().reverse())
      expect(all.body.total).toBe(all.body.data.length)
      expect(all.body).toMatchObject({ limit: 100, offset: 0 })

      const filtered = await api<List>(server, 'GET', `/showcases?qrCodeId=${other.id}&limit=2&offset=1`)
      expect(filtered.body).toMatchObject({ total: 3, limit: 2, offset: 1 })
      expect(filtered.body.data.map((s) => s.title)).toEqual(['List Two', 'List One'])

      const defaults = await api<List>(server, 'GET', `/showcases?qrCodeId=${other.id}`)
      expect(defaults.body).toMatchObject({ total: 3, limit: 50, offset: 0 })
    })

    it('updates fields, accepts social links and buttons, clears nullable fields', async () => {
      tick()
      const s = await createShowcase(server, {
        qrCodeId: code.id,
        title: 'Before',
        description: 'Old',
        customColors: { primary: '#123456' },
      })
      const patched = await updateShowcase(server, s.id, {
        title: 'After',
        description: null,
        template: 'bold',
        customColors: null,
        showBranding: false,
        isActive: false,
        socialLinks: [{ platform: 'Instagram', url: 'https://instagram.com/after' }],
        ctaButtons: [{ label: 'Book a table', url: 'https://example.com/book' }],
      })
      expect(patched).toMatchObject({
        id: s.id,
        slug: s.slug,
        title: 'After',
        description: null,
        template: 'bold',
        customColors: null,
        showBranding: false,
        isActive: false,
        socialLinks: [{ platform: 'Instagram', url: 'https://instagram.com/after' }],
        ctaButtons: [{ label: 'Book a table', url: 'https://example.com/book' }],
        createdAt: s.createdAt,
      })
      expect(await getShowcase(server, s.id)).toEqual(patched)
      const cleared = await updateShowcase(server, s.id, {
        socialLinks: null,
        ctaButtons: [],
        isActive: true,
      })
      expect(cleared).toMatchObject({ socialLinks: null, ctaButtons: [], isActive: true })
    })

    it('changes the slug, and keeps it when given its own slug again', async () => {
      tick()
      const s = await createShowcase(server, { qrCodeId: code.id, title: 'Rename me' })
      const renamed = await updateShowcase(server, s.id, { slug: 'renamed-page' })
      expect(renamed).toMatchObject({ slug: 'renamed-page', url: `${server.baseUrl}/s/renamed-page` })
      expect((await updateShowcase(server, s.id, { slug: 'renamed-page' })).slug).toBe('renamed-page')
    })

    it('deletes for good: 404 afterwards, the page too, and the slug is free again', async () => {
      tick()
      const s = await createShowcase(server, { qrCodeId: code.id, title: 'Gone soon', slug: 'gone-soon' })
      const res = await api(server, 'DELETE', `/showcases/${s.id}`)
      expect(res).toMatchObject({ status: 200, body: { success: true } })
      expect((await api(server, 'GET', `/showcases/${s.id}`)).status).toBe(404)
      expect((await api(server, 'DELETE', `/showcases/${s.id}`)).status).toBe(404)
      expect((await visit(s.url)).status).toBe(404)
      expect(
        (await createShowcase(server, { qrCodeId: code.id, title: 'Again', slug: 'gone-soon' })).slug,
      ).toBe('gone-soon')
    })

    it('hides the showcases of a deleted code and brings them back on restore', async () => {
      const c = await createCode(server)
      tick()
      const s = await createShowcase(server, { qrCodeId: c.id, title: 'Follows its code' })
      expect((await api(server, 'DELETE', `/qr-codes/${c.id}`)).status).toBe(200)
      expect((await api(server, 'GET', `/showcases/${s.id}`)).status).toBe(404)
      const list = await api<List>(server, 'GET', `/showcases?qrCodeId=${c.id}`)
      expect(list.body).toMatchObject({ data: [], total: 0 })
      expect((await api(server, 'POST', `/qr-codes/${c.id}/restore`)).status).toBe(200)
      expect((await getShowcase(server, s.id)).id).toBe(s.id)
    })

    it('removes the showcases with their code when the purge hard-deletes it', async () => {
      const c = await createCode(server)
      tick()
      const s = await createShowcase(server, { qrCodeId: c.id, title: 'Purged with its code' })
      expect((await api(server, 'DELETE', `/qr-codes/${c.id}`)).status).toBe(200)
      const saved = clock.now()
      clock.advance(31 * 86_400_000)
      try {
        await runHousekeeping(server.ctx)
      } finally {
        clock.set(saved)
      }
      const rows = await server.ctx.db.selectFrom('showcases').select('id').where('id', '=', s.id).execute()
      expect(rows).toEqual([])
    })
  })

  describe('errors', () => {
    const expectValidation = (res: { status: number; body: unknown }, path: string) => {
      expect(res.status).toBe(400)
      const body = res.body as ErrorBody
      expect(body.error).toBe('validation_error')
      expect(body.details.issues?.map((i) => i.path)).toContain(path)
      return body
    }

    it.each(['socialLinks', 'ctaButtons'])('rejects %s on create and says to use PATCH', async (field) => {
      const res = await api(server, 'POST', '/showcases', {
        body: { qrCodeId: code.id, title: 'x', [field]: [] },
      })
      expect(res.status).toBe(400)
      expect(JSON.stringify(res.body)).toContain('PATCH')
    })

    it.each([
      'javascript:alert(1)',
      'JavaScript://example.com/%0Aalert(1)',
      'data:text/html,<script>alert(1)</script>',
      'ftp://example.com/logo.png',
      '//example.com/logo.png',
      'https://exa mple.com',
    ])('rejects the URL %s in every URL field', async (url) => {
      for (const field of ['logoUrl', 'customBackgroundUrl']) {
        expectValidation(
          await api(server, 'POST', '/showcases', { body: { qrCodeId: code.id, title: 'x', [field]: url } }),
          field,
        )
      }
      tick()
      const s = await createShowcase(server, { qrCodeId: code.id, title: 'URL checks' })
      expectValidation(
        await api(server, 'PATCH', `/showcases/${s.id}`, { body: { socialLinks: [{ platform: 'x', url }] } }),
        'socialLinks.0.url',
      )
      expectValidation(
        await api(server, 'PATCH', `/showcases/${s.id}`, { body: { ctaButtons: [{ label: 'x', url }] } }),
        'ctaButtons.0.url',
      )
      expectValidation(
        await api(server, 'PATCH', `/showcases/${s.id}`, { body: { logoUrl: url } }),
        'logoUrl',
      )
    })

    it.each([
      [{ primary: 'red' }, 'customColors.primary'],
      [{ background: '#12345' }, 'customColors.background'],
      [{ text: '#777777', background: '#888888' }, 'customColors.text'],
      [{ accent: '#000000' }, 'customColors'],
    ])('rejects customColors %j', async (customColors, path) => {
      expectValidation(
        await api(server, 'POST', '/showcases', { body: { qrCodeId: code.id, title: 'x', customColors } }),
        path,
      )
    })

    it.each(['ab', '-abc', 'abc-', 'Abc', 'a_b_c', 'a b c', 'x'.repeat(65), 'café'])(
      'rejects the slug %j',
      async (slug) => {
        expectValidation(
          await api(server, 'POST', '/showcases', { body: { qrCodeId: code.id, title: 'x', slug } }),
          'slug',
        )
      },
    )

    it('answers 409 conflict for a taken slug on create and on PATCH', async () => {
      tick()
      await createShowcase(server, { qrCodeId: code.id, title: 'Taken', slug: 'taken-slug' })
      const again = await api<ErrorBody>(server, 'POST', '/showcases', {
        body: { qrCodeId: code.id, title: 'Other', slug: 'taken-slug' },
      })
      expect(again.status).toBe(409)
      expect(again.body.error).toBe('conflict')
      tick()
      const other = await createShowcase(server, { qrCodeId: code.id, title: 'Other' })
      const patch = await api<ErrorBody>(server, 'PATCH', `/showcases/${other.id}`, {
        body: { slug: 'taken-slug' },
      })
      expect(patch.status).toBe(409)
      expect(patch.body.error).toBe('conflict')
      expect((await getShowcase(server, other.id)).slug).toBe(other.slug)
    })

    it('lets exactly one of two concurrent creates take an explicit slug', async () => {
      const results = await Promise.all(
        [1, 2].map(() =>
          api(server, 'POST', '/showcases', {
            body: { qrCodeId: code.id, title: 'x', slug: 'photo-finish' },
          }),
        ),
      )
      expect(results.map((r) => r.status).sort()).toEqual([201, 409])
    })

    it('answers 404 for an unknown or deleted qrCodeId', async () => {
      const unknown = await api<ErrorBody>(server, 'POST', '/showcases', {
        body: { qrCodeId: '00000000-0000-4000-8000-000000000000', title: 'x' },
      })
      expect(unknown.status).toBe(404)
      expect(unknown.body.error).toBe('not_found')
      const c = await createCode(server)
      await api(server, 'DELETE', `/qr-codes/${c.id}`)
      expect((await api(server, 'POST', '/showcases', { body: { qrCodeId: c.id, title: 'x' } })).status).toBe(
        404,
      )
    })

    it('answers 404 for an unknown id and 400 for one that is not a UUID', async () => {
      const id = '00000000-0000-4000-8000-000000000000'
      expect((await api(server, 'GET', `/showcases/${id}`)).status).toBe(404)
      expect((await api(server, 'PATCH', `/showcases/${id}`, { body: { title: 'x' } })).status).toBe(404)
      expect((await api(server, 'DELETE', `/showcases/${id}`)).status).toBe(404)
      expect((await api(server, 'GET', '/showcases/not-a-uuid')).status).toBe(400)
    })

    it('rejects oversized lists, labels, titles and unknown fields', async () => {
      tick()
      const s = await createShowcase(server, { qrCodeId: code.id, title: 'Limits' })
      const link = { platform: 'web', url: 'https://example.com' }
      const button = { label: 'Go', url: 'https://example.com' }
      const patch = (body: unknown) => api(server, 'PATCH', `/showcases/${s.id}`, { body })
      expectValidation(await patch({ socialLinks: Array(11).fill(link) }), 'socialLinks')
      expectValidation(await patch({ ctaButtons: Array(6).fill(button) }), 'ctaButtons')
      expectValidation(
        await patch({ ctaButtons: [{ ...button, label: 'x'.repeat(41) }] }),
        'ctaButtons.0.label',
      )
      expectValidation(await patch({ ctaButtons: [{ ...button, label: '' }] }), 'ctaButtons.0.label')
      expectValidation(await patch({ title: '' }), 'title')
      expectValidation(await patch({ template: 'neon' }), 'template')
      const snake = await patch({ show_branding: false })
      expect(snake.status).toBe(400)
      expect(JSON.stringify(snake.body)).toContain('showBranding')
      expectValidation(await api(server, 'GET', '/showcases?limit=101'), 'limit')
      expectValidation(await api(server, 'GET', '/showcases?qrCodeId=nope'), 'qrCodeId')
    })
  })

  describe('security', () => {
    it('answers 404 to another account for every id of mine, and never lists them', async () => {
      tick()
      const mine = await createShowcase(server, { qrCodeId: code.id, title: 'Private to A' })
      const b = await server.createAccount()
      const asB = { key: b.apiKey }
      expect((await api(server, 'GET', `/showcases/${mine.id}`, asB)).status).toBe(404)
      expect(
        (await api(server, 'PATCH', `/showcases/${mine.id}`, { ...asB, body: { title: 'x' } })).status,
      ).toBe(404)
      expect((await api(server, 'DELETE', `/showcases/${mine.id}`, asB)).status).toBe(404)
      const list = await api<List>(server, 'GET', '/showcases?limit=100', asB)
      expect(list.body).toMatchObject({ data: [], total: 0 })
      const byCode = await api<List>(server, 'GET', `/showcases?qrCodeId=${code.id}`, asB)
      expect(byCode.body).toMatchObject({ data: [], total: 0 })
      const onMyCode = await api(server, 'POST', '/showcases', {
        ...asB,
        body: { qrCodeId: code.id, title: 'x' },
      })
      expect(onMyCode.status).toBe(404)
      expect((await getShowcase(server, mine.id)).title).toBe('Private to A')
    })

    it('keeps a read key from writing and a write key from reading', async () => {
      const read = await server.createAccount({ scope: 'read' })
      const write = await server.createAccount({ scope: 'write' })
      const readPost = await api<ErrorBody>(server, 'POST', '/showcases', {
        key: read.apiKey,
        body: { qrCodeId: code.id, title: 'x' },
      })
      expect(readPost.status).toBe(403)
      expect(readPost.body.error).toBe('insufficient_scope')
      const writeGet = await api<ErrorBody>(server, 'GET', '/showcases', { key: write.apiKey })
      expect(writeGet.status).toBe(403)
      expect(writeGet.body.error).toBe('insufficient_scope')
      expect((await api(server, 'GET', '/showcases', { key: read.apiKey })).status).toBe(200)
    })

    it('answers 401 without a key and 403 plan_required without the paid plan', async () => {
      const res = await fetch(`${server.baseUrl}/api/v1/showcases`)
      expect(res.status).toBe(401)
      const free = await server.createAccount({ plan: 'free' })
      const blocked = await api<ErrorBody>(server, 'GET', '/showcases', { key: free.apiKey })
      expect(blocked.status).toBe(403)
      expect(blocked.body.error).toBe('plan_required')
    })

    it('stores hostile text as given and returns it as JSON, not markup', async () => {
      const title = '<img src=x onerror=alert(1)>"\'&'
      tick()
      const s = await createShowcase(server, { qrCodeId: code.id, title, description: '<script>x</script>' })
      const res = await fetch(`${server.baseUrl}/api/v1/showcases/${s.id}`, {
        headers: { authorization: `Bearer ${server.apiKey}` },
      })
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      expect(((await res.json()) as { data: Showcase }).data.title).toBe(title)
      expect(s.slug).toMatch(/^[a-z0-9-]+$/)
    })
  })
})
