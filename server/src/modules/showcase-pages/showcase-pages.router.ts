import { TEMPLATES, type Template } from '@qrctl/contract'
import { type Request, type Response, Router } from 'express'
import type { Ctx } from '../../context.js'
import { type PagePolicy, sendPage } from '../../lib/html.js'
import type { ImageAnswer } from '../images/images.service.js'
import { userAgentDetails } from '../scans/scan-details.js'
import { showcaseUrl } from '../showcases/showcases.service.js'
import { renderNotFoundPage, renderShowcasePage } from './showcase-pages.page.js'
import * as pages from './showcase-pages.service.js'
import { STYLESHEETS, type Stylesheet } from './showcase-pages.styles.js'

/**
 * The strictest policy the page works under: no script at all, styles only from our own
 * stylesheets and the one nonce'd `<style>`, images from anywhere (customers host their logos),
 * no forms, no framing, no <base>.
 */
function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' https: http: data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** Each answer has its own nonce and counts a view: never reuse one from a cache. */
const SHOWCASE_PAGE: PagePolicy = {
  csp: contentSecurityPolicy,
  referrerPolicy: 'strict-origin-when-cross-origin',
  cacheControl: 'no-store',
}

function sendHtml(res: Response, status: number, render: (nonce: string) => string): void {
  sendPage(res, status, SHOWCASE_PAGE, render)
}

const notFoundPage = (res: Response) => sendHtml(res, 404, renderNotFoundPage)

/**
 * People, not crawlers or link previews, and not HEAD probes, move the counters (DESIGN §9),
 * by the same rule that decides which scans count.
 */
function isCountable(req: Request): boolean {
  return req.method === 'GET' && !userAgentDetails(req.get('user-agent')).isBot
}

const ASSET = /^([a-z]+)(?:\.([A-Za-z0-9_-]+))?\.css$/

/** `{template}.css`, or `{template}.{version}.css` for the current version only. */
function findStylesheet(file: string): { sheet: Stylesheet; isVersioned: boolean } | undefined {
  const match = ASSET.exec(file)
  const template = match?.[1] as Template | undefined
  if (!match || !template || !TEMPLATES.includes(template)) return undefined
  const sheet = STYLESHEETS[template]
  if (match[2] !== undefined && match[2] !== sheet.version) return undefined
  return { sheet, isVersioned: match[2] !== undefined }
}

function serveStylesheet(req: Request, res: Response) {
  const found = findStylesheet(String(req.params.file))
  if (!found) return notFoundPage(res)
  const { sheet, isVersioned } = found
  res.setHeader('Content-Type', 'text/css; charset=utf-8')
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.setHeader('Cache-Control', isVersioned ? 'public, max-age=31536000, immutable' : 'public, max-age=300')
  res.setHeader('ETag', sheet.etag)
  if (req.get('if-none-match') === sheet.etag) return res.status(304).end()
  res.send(sheet.css)
}

/** GET /s/{slug}, its QR images and the template stylesheets; mounted outside /api/v1. */
/** What the pages need from the transport layer (injected: modules never import http/). */
export interface ShowcasePagesDeps {
  imageAnswer: ImageAnswer
}

export function createShowcasePagesRouter(ctx: Ctx, deps: ShowcasePagesDeps): Router {
  const router = Router()

  router.get('/s/_assets/:file', serveStylesheet)

  router.get('/s/:slug', async (req, res) => {
    const live = await pages.findLiveShowcase(ctx, String(req.params.slug))
    if (!live) return notFoundPage(res)
    const { showcase } = live
    if (isCountable(req)) await pages.recordView(ctx, showcase)
    sendHtml(res, 200, (nonce) =>
      renderShowcasePage(showcase, { nonce, url: showcaseUrl(ctx, showcase.slug) }),
    )
  })

  for (const format of ['png', 'svg'] as const) {
    router.get(`/s/:slug/qr.${format}`, async (req, res) => {
      const live = await pages.findLiveShowcase(ctx, String(req.params.slug))
      if (!live) return notFoundPage(res)
      const { showcase, code } = live
      // `download=1` is the page's download button: counted, and always the full image.
      const isDownload = req.query.download === '1' || req.query.download === 'true'
      if (isDownload && isCountable(req)) await pages.recordDownload(ctx, showcase)
      const result = await pages.renderShowcaseQr(
        ctx,
        code,
        format,
        isDownload ? undefined : req.get('if-none-match'),
      )
      res.setHeader('Content-Security-Policy', "default-src 'none'")
      // A cached download would never reach the counter.
      const attachment = isDownload ? `${showcase.slug}.${format}` : undefined
      const answer = deps.imageAnswer(
        res,
        result.notModified ? result : { ...result, attachment },
        isDownload ? 'no-store' : 'public, max-age=300',
      )
      res.status(answer.status)
      if (answer.body) res.send(answer.body)
      else res.end()
    })
  }

  return router
}
