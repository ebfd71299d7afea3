import { readFile } from 'node:fs/promises'
import { type Showcase, TEMPLATES, type Template } from '@qrctl/contract'
import type { Browser, BrowserContextOptions, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { missing } from '../../vitest.requirements.js'
import {
  api,
  createCode,
  createShowcase,
  decodeQrPng,
  getShowcase,
  updateShowcase,
} from '../showcases/helpers.js'
import { startServer, type TestServer } from '../support/server.js'
import {
  CHROMIUM_PATH,
  createSampleShowcase,
  DESKTOP,
  hasChromium,
  type ImageHost,
  launchBrowser,
  PHONE,
  SAMPLES,
  startImageHost,
} from './browser.js'

/*
 * The page.evaluate callbacks run in the browser. The test project has no DOM library (it would
 * change fetch's types for every test), so these are the few DOM members the callbacks use.
 */
interface DomElement {
  textContent: string | null
  attributes: ArrayLike<{ name: string }>
  protocol?: string
}
declare const document: {
  querySelector(selector: string): DomElement | null
  querySelectorAll(selector: string): ArrayLike<DomElement>
  activeElement: DomElement | null
  documentElement: { scrollWidth: number }
}
declare function getComputedStyle(element: DomElement): {
  color: string
  backgroundColor: string
  outlineStyle: string
  outlineWidth: string
}

/** What went wrong on a page while it was open: console errors, script errors, dialogs, failed loads. */
interface Trouble {
  consoleErrors: string[]
  pageErrors: string[]
  dialogs: string[]
  failedRequests: string[]
}

function watch(page: Page): Trouble {
  const trouble: Trouble = { consoleErrors: [], pageErrors: [], dialogs: [], failedRequests: [] }
  page.on('console', (message) => {
    if (message.type() === 'error') trouble.consoleErrors.push(message.text())
  })
  page.on('pageerror', (error) => trouble.pageErrors.push(error.message))
  page.on('dialog', (dialog) => {
    trouble.dialogs.push(`${dialog.type()}: ${dialog.message()}`)
    void dialog.dismiss()
  })
  page.on('requestfailed', (request) => trouble.failedRequests.push(request.url()))
  return trouble
}

const noTrouble: Trouble = { consoleErrors: [], pageErrors: [], dialogs: [], failedRequests: [] }

/** WCAG contrast of two computed CSS colours (`rgb(r, g, b)`), computed in the test, not the page. */
function contrast(a: string, b: string): number {
  const lum = (color: string) => {
    const [r, g, b] = (color.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
      const c = Number(v) / 255
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
    }) as [number, number, number]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b
  }
  const [la, lb] = [lum(a), lum(b)]
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05)
}

// Chromium comes from Debian's package (CI installs it); without it, only a local run skips.
const noChromium = missing(
  `chromium (${CHROMIUM_PATH})`,
  hasChromium,
  'apt-get install chromium, or point CHROMIUM_PATH at a Chromium binary',
)
describe.skipIf(noChromium)(`showcase pages in Chromium (${CHROMIUM_PATH})`, () => {
  let server: TestServer
  let images: ImageHost
  let browser: Browser

  beforeAll(async () => {
    server = await startServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } })
    images = await startImageHost()
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await images?.close()
    await server?.close()
  })

  async function open(url: string, device: BrowserContextOptions) {
    const context = await browser.newContext(device)
    const page = await context.newPage()
    const trouble = watch(page)
    const response = await page.goto(url, { waitUntil: 'networkidle' })
    return { context, page, trouble, status: response?.status() }
  }

  describe('happy', () => {
    const sizes: [string, BrowserContextOptions][] = [
      ['390', PHONE],
      ['1280', DESKTOP],
    ]
    const cases = TEMPLATES.flatMap((template) =>
      sizes.map(([width, device]) => [template, width, device] as const),
    )

    it.each(cases)(
      '%s at %s px shows title, buttons and links inside the viewport',
      async (template, _w, device) => {
        const showcase = await createSampleShowcase(server, images, template as Template)
        const { context, page, trouble, status } = await open(showcase.url, device)
        try {
          expect(status).toBe(200)
          const width = device.viewport?.width as number
          const sample = SAMPLES[template as Template]
          const targets = [
            page.getByRole('heading', { level: 1, name: sample.title }),
            ...sample.ctaButtons.map((b) => page.getByRole('link', { name: b.label, exact: true })),
            ...sample.socialLinks.map((l) => page.getByRole('link', { name: l.platform, exact: true })),
            page.getByRole('img', { name: `QR code for ${sample.title}` }),
            page.getByRole('img', { name: `${sample.title} logo` }),
            page.getByRole('link', { name: 'Download QR code' }),
            page.getByText('Made with qrctl'),
          ]
          for (const target of targets) {
            await target.scrollIntoViewIfNeeded()
            expect(await target.isVisible()).toBe(true)
            const box = await target.boundingBox()
            expect(box).not.toBeNull()
            expect(box?.width).toBeGreaterThan(0)
            expect(box?.height).toBeGreaterThan(0)
            expect(box?.x).toBeGreaterThanOrEqual(0)
            expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(width)
          }
          // Nothing scrolls sideways, and both images really loaded.
          expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width)
          const loaded = await page.$$eval('img', (imgs) =>
            imgs.map((img) => img.complete && img.naturalWidth > 0),
          )
          expect(loaded).toEqual(loaded.map(() => true))
          // Text on the card and labels on buttons read at AA (4.5:1), as the browser paints them.
          const pairs = await page.evaluate(() => {
            const style = (selector: string) =>
              getComputedStyle(document.querySelector(selector) as DomElement)
            const card = style('.card').backgroundColor
            return [
              [style('h1').color, card],
              [style('.description').color, card],
              [style('.actions .button').color, style('.actions .button').backgroundColor],
              [style('.social a').color, style('.social a').backgroundColor],
            ]
          })
          for (const [fg, bg] of pairs)
            expect(contrast(fg as string, bg as string)).toBeGreaterThanOrEqual(4.5)
          expect(await page.getAttribute('html', 'lang')).toBe('en')
          expect(trouble).toEqual(noTrouble)
        } finally {
          await context.close()
        }
      },
    )

    it('shows a visible focus ring when tabbing to a button', async () => {
      const showcase = await createSampleShowcase(server, images, 'modern')
      const { context, page } = await open(showcase.url, PHONE)
      try {
        await page.keyboard.press('Tab')
        const focus = await page.evaluate(() => {
          const el = document.activeElement as DomElement
          const style = getComputedStyle(el)
          return {
            text: el.textContent,
            outline: style.outlineStyle,
            width: Number.parseFloat(style.outlineWidth),
          }
        })
        expect(focus.text).toBe(SAMPLES.modern.ctaButtons[0]?.label)
        expect(focus.outline).not.toBe('none')
        expect(focus.width).toBeGreaterThanOrEqual(2)
      } finally {
        await context.close()
      }
    })

    it('delivers a PNG from the download button that decodes to the code, and the counters move', async () => {
      const code = await createCode(server)
      const showcase = await createShowcase(server, {
        qrCodeId: code.id,
        title: 'Counting Café',
        template: 'bold',
      })
      const before = await getShowcase(server, showcase.id)
      expect(before).toMatchObject({ viewCount: 0, downloadCount: 0 })

      const { context, page, trouble } = await open(showcase.url, PHONE)
      try {
        await page.reload({ waitUntil: 'networkidle' })
        expect((await getShowcase(server, showcase.id)).viewCount).toBe(2)

        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('link', { name: 'Download QR code' }).click(),
        ])
        expect(download.suggestedFilename()).toBe(`${showcase.slug}.png`)
        const bytes = await readFile((await download.path()) as string)
        expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
        expect(decodeQrPng(bytes)).toBe(code.shortUrl)

        const after = await getShowcase(server, showcase.id)
        expect(after).toMatchObject({ viewCount: 2, downloadCount: 1 })
        expect(trouble).toEqual(noTrouble)
      } finally {
        await context.close()
      }
    })
  })

  describe('security', () => {
    const TITLE = '<script>alert("title")</script><img src=x onerror=alert("img")>'
    const DESCRIPTION = '</p><script>alert(document.cookie)</script>\n"><svg onload=alert(1)>'
    const PLATFORM = '<img src=x onerror=alert("social")>'
    const LABEL = '<script>alert("button")</script>'
    let hostile: Showcase

    beforeAll(async () => {
      const code = await createCode(server)
      hostile = await createShowcase(server, { qrCodeId: code.id, title: TITLE, description: DESCRIPTION })
      await updateShowcase(server, hostile.id, {
        socialLinks: [{ platform: PLATFORM, url: 'https://example.com/"onclick="alert(1)' }],
        ctaButtons: [{ label: LABEL, url: 'https://example.com/?next=javascript:alert(1)' }],
      })
    })

    it('refuses javascript: and other non-http URLs in every URL field', async () => {
      const urls = [
        'javascript:alert(1)',
        ' javascript:alert(1)',
        'JAVASCRIPT:alert(1)',
        'data:text/html,x',
        'vbscript:x',
      ]
      for (const url of urls) {
        const patches = [
          { socialLinks: [{ platform: 'x', url }] },
          { ctaButtons: [{ label: 'x', url }] },
          { logoUrl: url },
          { customBackgroundUrl: url },
        ]
        for (const body of patches) {
          const res = await api(server, 'PATCH', `/showcases/${hostile.id}`, { body })
          expect(res.status, `${JSON.stringify(body)}`).toBe(400)
        }
      }
    })

    it.each(TEMPLATES)('never runs a planted script, and shows the text literally (%s)', async (template) => {
      await updateShowcase(server, hostile.id, { template })
      const { context, page, trouble } = await open(hostile.url, PHONE)
      try {
        await page.getByRole('link', { name: PLATFORM }).hover()
        await page.getByRole('link', { name: LABEL }).hover()
        expect(await page.textContent('h1')).toBe(TITLE)
        expect(await page.textContent('.description')).toBe(DESCRIPTION)
        expect(await page.textContent('.social .platform')).toBe(PLATFORM)
        expect(await page.textContent('.actions .button')).toBe(LABEL)
        expect(await page.title()).toBe(TITLE)
        const planted = await page.evaluate(() => ({
          scripts: document.querySelectorAll('script').length,
          handlers: Array.from(document.querySelectorAll('*')).flatMap((el) =>
            Array.from(el.attributes)
              .filter((a) => a.name.startsWith('on'))
              .map((a) => a.name),
          ),
          svgs: document.querySelectorAll('svg').length,
          links: Array.from(document.querySelectorAll('a')).map((a) => a.protocol),
        }))
        expect(planted).toEqual({ scripts: 0, handlers: [], svgs: 0, links: planted.links })
        expect(planted.links.every((protocol) => protocol === 'http:' || protocol === 'https:')).toBe(true)
        expect(trouble.dialogs).toEqual([])
        expect(trouble.pageErrors).toEqual([])
        expect(trouble.consoleErrors).toEqual([])
      } finally {
        await context.close()
      }
    })
  })
})
