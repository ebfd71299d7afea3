import type { Template } from '@qrctl/contract'
import { escapeHtml as e } from '../../lib/html.js'
import type { ShowcaseRecord } from '../showcases/showcases.repository.js'
import { paletteCss, resolvePalette } from './showcase-pages.colors.js'
import { safeCtaUrl, safeUrl } from './showcase-pages.html.js'
import { stylesheetPath } from './showcase-pages.styles.js'

/**
 * The public pages as strings. Every user value passes through `escapeHtml` (text and
 * attributes) or `safeUrl` (href/src); the only inline CSS is the colour variables, in a
 * `<style>` carrying the response's CSP nonce. No script, inline or otherwise.
 */

export interface PageOptions {
  /** The CSP nonce of this response. */
  nonce: string
  /** The page's absolute public address, for og:url and the canonical link. */
  url: string
}

const INDENT = '\n  '

/** A description for meta tags: one line, at most 300 characters. */
const summary = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 300)

function head(opts: {
  title: string
  description?: string | null | undefined
  template: Template
  nonce: string
  url?: string
  image?: string | undefined
  inlineCss?: string
}): string {
  const parts = [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${e(opts.title)}</title>`,
    opts.description ? `<meta name="description" content="${e(summary(opts.description))}">` : '',
    opts.url ? `<link rel="canonical" href="${e(opts.url)}">` : '',
    opts.url ? '<meta property="og:type" content="website">' : '',
    opts.url ? `<meta property="og:title" content="${e(opts.title)}">` : '',
    opts.url && opts.description
      ? `<meta property="og:description" content="${e(summary(opts.description))}">`
      : '',
    opts.url ? `<meta property="og:url" content="${e(opts.url)}">` : '',
    opts.image ? `<meta property="og:image" content="${opts.image}">` : '',
    opts.template === 'dark' ? '<meta name="color-scheme" content="dark">' : '',
    // An empty icon: no /favicon.ico request (and no 404 in the console) for every view.
    '<link rel="icon" href="data:,">',
    `<link rel="stylesheet" href="${stylesheetPath(opts.template)}">`,
    opts.inlineCss ? `<style nonce="${e(opts.nonce)}">${opts.inlineCss}</style>` : '',
  ]
  return parts.filter(Boolean).join(INDENT)
}

function ctaList(showcase: ShowcaseRecord): string {
  const items = (showcase.ctaButtons ?? []).flatMap((button) => {
    const href = safeCtaUrl(button.url)
    if (!href) return []
    return [`<li><a class="button" href="${href}" rel="nofollow noopener">${e(button.label)}</a></li>`]
  })
  return items.length ? `<ul class="actions" aria-label="Links">${items.join('')}</ul>` : ''
}

function socialList(showcase: ShowcaseRecord): string {
  const items = (showcase.socialLinks ?? []).flatMap((link) => {
    const href = safeUrl(link.url)
    if (!href) return []
    const initial = [...link.platform.trim()][0] ?? '•'
    return [
      `<li><a href="${href}" rel="me nofollow noopener"><span class="initial" aria-hidden="true">${e(initial)}</span><span class="platform">${e(link.platform)}</span></a></li>`,
    ]
  })
  return items.length ? `<ul class="social" aria-label="Social media">${items.join('')}</ul>` : ''
}

function qrBlock(showcase: ShowcaseRecord): string {
  const base = `/s/${e(showcase.slug)}`
  return `<section class="qr" aria-labelledby="qr-title">
      <h2 class="qr-title" id="qr-title">Scan or share</h2>
      <img class="qr-image" src="${base}/qr.svg" width="184" height="184" alt="QR code for ${e(showcase.title)}">
      <a class="button button-quiet" href="${base}/qr.png?download=1" download="${e(showcase.slug)}.png">Download QR code</a>
    </section>`
}

function branding(show: boolean): string {
  return show ? '<footer class="branding"><span>Made with <strong>qrctl</strong></span></footer>' : ''
}

export function renderShowcasePage(showcase: ShowcaseRecord, opts: PageOptions): string {
  const logo = safeUrl(showcase.logoUrl)
  const backdrop = safeUrl(showcase.customBackgroundUrl)
  const inlineCss = showcase.customColors
    ? paletteCss(resolvePalette(showcase.template, showcase.customColors))
    : undefined
  const bodyClass = `t-${showcase.template}${backdrop ? ' has-backdrop' : ''}`
  return `<!doctype html>
<html lang="en">
<head>
  ${head({ title: showcase.title, description: showcase.description, template: showcase.template, nonce: opts.nonce, url: opts.url, image: logo, ...(inlineCss && { inlineCss }) })}
</head>
<body class="${bodyClass}">
  ${backdrop ? `<img class="backdrop" src="${backdrop}" alt="" referrerpolicy="no-referrer">` : ''}
  <main class="page">
    <div class="card">
    <header class="hero">
      ${logo ? `<img class="logo" src="${logo}" width="88" height="88" alt="${e(showcase.title)} logo" referrerpolicy="no-referrer">` : ''}
      <h1>${e(showcase.title)}</h1>
      ${showcase.description ? `<p class="description">${e(showcase.description)}</p>` : ''}
    </header>
    ${ctaList(showcase)}
    ${qrBlock(showcase)}
    ${socialList(showcase)}
    </div>
  </main>
  ${branding(showcase.showBranding)}
</body>
</html>
`
}

/** One page for every "not here": unknown slug, switched off, deleted code, lapsed plan. */
export function renderNotFoundPage(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  ${head({ title: 'Page not available', template: 'minimal', nonce })}
  <meta name="robots" content="noindex">
</head>
<body class="t-minimal">
  <main class="page">
    <div class="card notice">
      <h1>This page isn’t available</h1>
      <p class="description">The link may be mistyped, or its owner has switched the page off.</p>
    </div>
  </main>
</body>
</html>
`
}
