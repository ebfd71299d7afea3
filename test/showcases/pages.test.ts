import { type QrCode, type Showcase, TEMPLATES } from '@qrctl/contract'
import { accounts } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dialects, startServer, type TestServer } from '../support/server.js'
import {
  api,
  createCode,
  createShowcase,
  decodeQrPng,
  getShowcase,
  updateShowcase,
  visit,
} from './helpers.js'

const CSP = (nonce: string) =>
  `default-src 'none'; style-src 'self' 'nonce-${nonce}'; img-src 'self' https: http: data:; ` +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

function nonceOf(res: Response): string {
  const match = /'nonce-([A-Za-z0-9+/=]+)'/.exec(res.headers.get('content-security-policy') ?? '')
  if (!match?.[1]) throw new Error('no nonce in the Content-Security-Policy')
  return match[1]
}

/** Hostile strings for every user field that reaches the page. */
const XSS = '<script>alert("x")</script>"><img src=x onerror=alert(1)>\'&'
const XSS_ESCAPED =
  '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&#39;&amp;'

describe.each(dialects())('showcase pages on %s', (dialect) => {
  let server: TestServer
  let code: QrCode

  beforeAll(async () => {
    server = await startServer({ dialect, env: { RATE_LIMIT_PER_MINUTE: '100000' } })
    code = await createCode(server)
  })
  afterAll(async () => {
    await server?.close()
  })

  const page = (title: string, extra: Record<string, unknown> = {}) =>
    createShowcase(server, { qrCodeId: code.id, title, ...extra })

  describe('happy', () => {
    it('serves the page with a strict CSP, nosniff, a referrer policy and no caching', async () => {
      const s = await page('Headers')
      const res = await visit(s.url)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(res.headers.get('content-security-policy')).toBe(CSP(nonceOf(res)))
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin')
      expect(res.headers.get('x-frame-options')).toBe('DENY')
      expect(res.headers.get('cache-control')).toBe('no-store')
      const html = await res.text()
      expect(html).toMatch(/^<!doctype html>\n<html lang="en">/)
      expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">')
      expect(html).toContain('<title>Headers</title>')
      const second = await visit(s.url)
      expect(nonceOf(second)).not.toBe(nonceOf(res))
    })

    it('shows title, description, logo, background, buttons, social links, the QR code and branding', async () => {
      const s = await page('Luna Bistro', {
        description: 'Seasonal plates.\nOpen daily.',
        logoUrl: 'https://cdn.example.com/luna.png',
        customBackgroundUrl: 'http://cdn.example.com/bg.jpg',
      })
      await updateShowcase(server, s.id, {
        ctaButtons: [
          { label: 'Book a table', url: 'https://example.com/book' },
          { label: 'Menu', url: 'https://example.com/menu' },
          { label: 'Call', url: 'tel:+4930123456' },
          { label: 'Write', url: 'mailto:table@example.com?subject=Booking' },
          { label: 'Text', url: 'sms:+4930123456' },
        ],
        socialLinks: [{ platform: 'Instagram', url: 'https://instagram.com/luna' }],
      })
      const html = await (await visit(s.url)).text()
      expect(html).toContain('<h1>Luna Bistro</h1>')
      expect(html).toContain('<p class="description">Seasonal plates.\nOpen daily.</p>')
      expect(html).toContain('src="https://cdn.example.com/luna.png"')
      expect(html).toContain('alt="Luna Bistro logo"')
      expect(html).toMatch(/<img class="backdrop" src="http:\/\/cdn\.example\.com\/bg\.jpg" alt=""/)
      expect(html).toContain('href="https://example.com/book" rel="nofollow noopener">Book a table</a>')
      expect(html).toContain('href="https://example.com/menu" rel="nofollow noopener">Menu</a>')
      expect(html).toContain('href="tel:+4930123456" rel="nofollow noopener">Call</a>')
      expect(html).toContain(
        'href="mailto:table@example.com?subject=Booking" rel="nofollow noopener">Write</a>',
      )
      expect(html).toContain('href="sms:+4930123456" rel="nofollow noopener">Text</a>')
      expect(html).toContain('href="https://instagram.com/luna"')
      expect(html).toContain(`src="/s/${s.slug}/qr.svg"`)
      expect(html).toContain('alt="QR code for Luna Bistro"')
      expect(html).toContain(`href="/s/${s.slug}/qr.png?download=1"`)
      expect(html).toContain('Made with <strong>qrctl</strong>')
      await updateShowcase(server, s.id, { showBranding: false })
      expect(await (await visit(s.url)).text()).not.toContain('Made with')
    })

    it.each(TEMPLATES)('links the %s stylesheet, served as long-cached CSS', async (template) => {
      const s = await page(`Template ${template}`, { template })
      const html = await (await visit(s.url)).text()
      const href = new RegExp(
        `<link rel="stylesheet" href="(/s/_assets/${template}\\.[A-Za-z0-9_-]+\\.css)">`,
      ).exec(html)?.[1]
      expect(href).toBeDefined()
      const css = await fetch(`${server.baseUrl}${href}`)
      expect(css.status).toBe(200)
      expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8')
      expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      expect(css.headers.get('x-content-type-options')).toBe('nosniff')
      const body = await css.text()
      expect(body).toContain('--primary:')
      const etag = css.headers.get('etag') as string
      expect((await fetch(`${server.baseUrl}${href}`, { headers: { 'if-none-match': etag } })).status).toBe(
        304,
      )
      expect((await fetch(`${server.baseUrl}/s/_assets/${template}.css`)).status).toBe(200)
    })

    it('gives each template its own stylesheet', async () => {
      const bodies = await Promise.all(
        TEMPLATES.map(async (t) => (await fetch(`${server.baseUrl}/s/_assets/${t}.css`)).text()),
      )
      expect(new Set(bodies).size).toBe(TEMPLATES.length)
    })

    it('sets custom colours in one <style> that carries the response nonce, and nowhere else', async () => {
      const plain = await visit((await page('No colours')).url)
      expect(await plain.text()).not.toContain('<style')
      const s = await page('Coloured', {
        customColors: { primary: '#ff5a1f', background: '#0f172a', text: '#f8fafc' },
      })
      const res = await visit(s.url)
      const html = await res.text()
      const styles = [...html.matchAll(/<style([^>]*)>([^<]*)<\/style>/g)]
      expect(styles).toHaveLength(1)
      expect(styles[0]?.[1]).toBe(` nonce="${nonceOf(res)}"`)
      expect(styles[0]?.[2]).toContain('--primary:#ff5a1f')
      expect(styles[0]?.[2]).toContain('--bg:#0f172a')
      expect(styles[0]?.[2]).toContain('--text:#f8fafc')
      expect(html).not.toMatch(/\sstyle=/)
    })

    it('counts a view per page load by a person, not HEAD, bots or link previews', async () => {
      const s = await page('Counted views')
      await visit(s.url)
      await visit(s.url)
      await visit(s.url, { method: 'HEAD' })
      await visit(s.url, { ua: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' })
      await visit(s.url, { ua: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)' })
      await visit(s.url, { ua: 'curl/8.5.0' })
      expect((await getShowcase(server, s.id)).viewCount).toBe(2)
    })

    it('serves the code as PNG and SVG; the PNG decodes to the code payload', async () => {
      const s = await page('Images')
      const png = await visit(`${s.url}/qr.png`)
      expect(png.status).toBe(200)
      expect(png.headers.get('content-type')).toBe('image/png')
      expect(png.headers.get('content-disposition')).toBeNull()
      expect(decodeQrPng(new Uint8Array(await png.arrayBuffer()))).toBe(code.shortUrl)
      const svg = await visit(`${s.url}/qr.svg`)
      expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/)
      expect(await svg.text()).toContain('<svg')
      const etag = svg.headers.get('etag') as string
      expect((await visit(`${s.url}/qr.svg`, { headers: { 'if-none-match': etag } })).status).toBe(304)
    })

    it('decodes to the content of a static code', async () => {
      const staticCode = await createCode(server, undefined, {
        type: 'static',
        contentType: 'text',
        content: 'Table 12',
      })
      const s = await createShowcase(server, { qrCodeId: staticCode.id, title: 'Static' })
      expect(decodeQrPng(new Uint8Array(await (await visit(`${s.url}/qr.png`)).arrayBuffer()))).toBe(
        'Table 12',
      )
    })

    it('counts downloads, not image views, HEAD or bots', async () => {
      const s = await page('Downloads')
      await visit(`${s.url}/qr.png`)
      await visit(`${s.url}/qr.svg`)
      const download = await visit(`${s.url}/qr.png?download=1`)
      expect(download.status).toBe(200)
      expect(download.headers.get('content-disposition')).toBe(`attachment; filename=${s.slug}.png`)
      expect(download.headers.get('cache-control')).toBe('no-store')
      expect(decodeQrPng(new Uint8Array(await download.arrayBuffer()))).toBe(code.shortUrl)
      await visit(`${s.url}/qr.svg?download=1`)
      await visit(`${s.url}/qr.png?download=1`, { method: 'HEAD' })
      await visit(`${s.url}/qr.png?download=1`, { ua: 'Googlebot/2.1' })
      const after = await getShowcase(server, s.id)
      expect(after).toMatchObject({ downloadCount: 2, viewCount: 0 })
    })
  })

  describe('errors', () => {
    const expectNotFoundPage = async (url: string) => {
      const res = await visit(url)
      expect(res.status).toBe(404)
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(res.headers.get('content-security-policy')).toBe(CSP(nonceOf(res)))
      expect(await res.text()).toContain('This page isn’t available')
    }

    it('answers the 404 page for unknown and malformed slugs', async () => {
      await expectNotFoundPage(`${server.baseUrl}/s/no-such-page`)
      await expectNotFoundPage(`${server.baseUrl}/s/NOT_A_SLUG`)
      await expectNotFoundPage(`${server.baseUrl}/s/no-such-page/qr.png`)
      await expectNotFoundPage(`${server.baseUrl}/s/_assets/neon.css`)
      await expectNotFoundPage(`${server.baseUrl}/s/_assets/minimal.oldversion.css`)
    })

    it('answers 404 while the showcase is switched off, and serves it again when switched on', async () => {
      const s = await page('Switched off')
      await updateShowcase(server, s.id, { isActive: false })
      await expectNotFoundPage(s.url)
      await expectNotFoundPage(`${s.url}/qr.png?download=1`)
      expect(await getShowcase(server, s.id)).toMatchObject({ viewCount: 0, downloadCount: 0 })
      await updateShowcase(server, s.id, { isActive: true })
      expect((await visit(s.url)).status).toBe(200)
    })

    it('answers 404 once the code is deleted', async () => {
      const c = await createCode(server)
      const s = await createShowcase(server, { qrCodeId: c.id, title: 'Deleted code' })
      expect((await visit(s.url)).status).toBe(200)
      await api(server, 'DELETE', `/qr-codes/${c.id}`)
      await expectNotFoundPage(s.url)
      await expectNotFoundPage(`${s.url}/qr.svg`)
    })

    it('answers 404 when the subscription lapses, and serves it while past due', async () => {
      const owner = await server.createAccount()
      const c = await createCode(server, owner.apiKey)
      const s = await createShowcase(server, { qrCodeId: c.id, title: 'Lapsing' }, owner.apiKey)
      await accounts.setPlan(server.ctx, owner.accountId, { subscriptionStatus: 'past_due' })
      expect((await visit(s.url)).status).toBe(200)
      await accounts.setPlan(server.ctx, owner.accountId, { subscriptionStatus: 'canceled' })
      await expectNotFoundPage(s.url)
      await accounts.setPlan(server.ctx, owner.accountId, { subscriptionStatus: 'active', plan: 'free' })
      await expectNotFoundPage(s.url)
    })
  })

  describe('security', () => {
    let hostile: Showcase

    beforeAll(async () => {
      hostile = await page(XSS, { description: XSS })
      await updateShowcase(server, hostile.id, {
        socialLinks: [{ platform: XSS.slice(0, 40), url: 'https://example.com/"onmouseover="alert(1)' }],
        ctaButtons: [{ label: XSS.slice(0, 40), url: "https://example.com/?q='><script>alert(1)</script>" }],
      })
    })

    it('escapes every user string, in text and in attributes', async () => {
      const html = await (await visit(hostile.url)).text()
      expect(html).not.toMatch(/<script/i)
      expect(html).not.toContain('<img src=x')
      expect(html).not.toContain('"onmouseover="')
      expect(html).toContain(`<h1>${XSS_ESCAPED}</h1>`)
      expect(html).toContain(`<p class="description">${XSS_ESCAPED}</p>`)
      expect(html).toContain(`<title>${XSS_ESCAPED}</title>`)
      expect(html).toContain(`alt="QR code for ${XSS_ESCAPED}"`)
      expect(html).toContain('href="https://example.com/&quot;onmouseover=&quot;alert(1)"')
      expect(html).toContain('href="https://example.com/?q=&#39;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"')
      // The only tags are ours: every `<` that starts a tag names a known element.
      const tags = new Set([...html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)/g)].map((m) => m[1]?.toLowerCase()))
      const ours = ['html', 'head', 'meta', 'title', 'link', 'body', 'main', 'div', 'header', 'h1', 'h2', 'p']
      const more = ['ul', 'li', 'a', 'section', 'img', 'span', 'footer', 'strong']
      expect([...tags].filter((t) => t && ![...ours, ...more].includes(t))).toEqual([])
    })

    it('sends no script and allows none', async () => {
      const res = await visit(hostile.url)
      expect(res.headers.get('content-security-policy')).not.toMatch(/script-src|unsafe-inline|unsafe-eval/)
      // Attribute names only: values are quoted, and escaping leaves no quote inside one.
      const tags = ((await res.text()).match(/<[a-z][^>]*>/gi) ?? []).map((tag) =>
        tag.replace(/"[^"]*"/g, '""'),
      )
      expect(tags.length).toBeGreaterThan(10)
      expect(tags.filter((tag) => /\son[a-z]+\s*=/i.test(tag) || /\sstyle\s*=/i.test(tag))).toEqual([])
    })

    it('never serves a javascript: URL, even one planted in the database', async () => {
      await server.ctx.db
        .updateTable('showcases')
        .set({
          logo_url: 'javascript:alert(1)',
          cta_buttons: JSON.stringify([{ label: 'Planted', url: 'javascript:alert(1)' }]),
          social_links: JSON.stringify([{ platform: 'Planted', url: 'data:text/html,x' }]),
        })
        .where('id', '=', hostile.id)
        .execute()
      const html = await (await visit(hostile.url)).text()
      expect(html).not.toContain('javascript:')
      expect(html).not.toContain('data:text')
      expect(html).not.toContain('Planted')
    })
  })
})
