import type { Qrctl } from '@qrctl/sdk'
import { Alerts, BlobUrls, csrfToken } from './api.js'
import { h } from './dom.js'

/** What a page gets: the client, its `main`, its alert region, and where it is. */
export interface PageCtx {
  qrctl: Qrctl
  main: HTMLElement
  alerts: Alerts
  blobs: BlobUrls
  params: string[]
  query: URLSearchParams
  /** Client-side navigation under /app (History API). */
  navigate(path: string, options?: { replace?: boolean }): void
  /** False once the person has moved on to another page: late answers are dropped. */
  isCurrent(): boolean
  /** The page's `h1`, which gets focus after a client-side navigation. */
  heading(text: string): HTMLHeadingElement
}

export interface Route {
  path: RegExp
  /** The `nav` link this page belongs to (for `aria-current`). */
  section: string
  render(ctx: PageCtx): Promise<void> | void
}

export const NAV_LINKS: readonly (readonly [string, string])[] = [
  ['/app', 'QR codes'],
  ['/app/analytics', 'Analytics'],
  ['/app/showcases', 'Showcases'],
  ['/app/webhooks', 'Webhooks'],
  ['/app/api-keys', 'API keys'],
]

function layout(section: string): { nav: HTMLElement; main: HTMLElement } {
  const links = NAV_LINKS.map(([href, text]) =>
    h('li', null, h('a', { href, 'aria-current': href === section ? 'page' : null }, text)),
  )
  const signOut = h(
    'form',
    { method: 'post', action: '/app/logout', class: 'sign-out' },
    h('input', { type: 'hidden', name: 'csrfToken', value: csrfToken() }),
    h('button', { type: 'submit', class: 'secondary' }, 'Sign out'),
  )
  const nav = h(
    'nav',
    { 'aria-label': 'Dashboard' },
    h('a', { href: '/app', class: 'brand', 'aria-label': 'qrctl home' }, 'qrctl'),
    h('ul', null, links),
    h(
      'a',
      {
        href: '/app/codes/new',
        class: 'button new-code',
        'aria-current': section === '/app/codes/new' ? 'page' : null,
      },
      'New QR code',
    ),
    signOut,
  )
  const main = h('main', { id: 'main', tabindex: '-1' })
  return { nav, main }
}

/** The single-page app: one `nav` and one `main` per page, routes under /app. */
export class Router {
  #generation = 0
  #blobs = new BlobUrls()

  constructor(
    private readonly qrctl: Qrctl,
    private readonly routes: Route[],
    private readonly notFound: Route,
  ) {}

  start(): void {
    document.addEventListener('click', (event) => this.#onClick(event))
    window.addEventListener('popstate', () => void this.render(false))
    void this.render(false)
  }

  navigate(path: string, options: { replace?: boolean } = {}): void {
    if (options.replace) history.replaceState(null, '', path)
    else history.pushState(null, '', path)
    void this.render(true)
  }

  /** Links to /app pages stay in the page; downloads, new tabs and other sites do not. */
  #onClick(event: MouseEvent): void {
    if (event.defaultPrevented || event.button !== 0) return
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    const link = (event.target as Element | null)?.closest?.('a')
    if (!link || link.hasAttribute('download') || link.target) return
    if (link.getAttribute('href')?.startsWith('#')) return
    const url = new URL(link.href, location.href)
    if (url.origin !== location.origin || !/^\/app(\/|$)/.test(url.pathname)) return
    if (url.pathname.startsWith('/app/login') || url.pathname.startsWith('/app/assets')) return
    event.preventDefault()
    if (url.pathname + url.search === location.pathname + location.search) return
    this.navigate(url.pathname + url.search)
  }

  async render(moveFocus: boolean): Promise<void> {
    const generation = ++this.#generation
    this.#blobs.revokeAll()
    const path = location.pathname.replace(/\/+$/, '') || '/app'
    let params: string[] = []
    const route =
      this.routes.find((candidate) => {
        const match = candidate.path.exec(path)
        if (match) params = match.slice(1).map((part) => decodeURIComponent(part))
        return match !== null
      }) ?? this.notFound
    const { nav, main } = layout(route.section)
    const alerts = new Alerts()
    const ctx: PageCtx = {
      qrctl: this.qrctl,
      main,
      alerts,
      blobs: this.#blobs,
      params,
      query: new URLSearchParams(location.search),
      navigate: (to, options) => this.navigate(to, options),
      isCurrent: () => generation === this.#generation,
      heading: (text) => {
        const heading = h('h1', { tabindex: '-1' }, text)
        document.title = `${text} · qrctl`
        main.prepend(heading)
        if (moveFocus) heading.focus()
        return heading
      },
    }
    document.body.replaceChildren(
      h('a', { href: '#main', class: 'skip-link' }, 'Skip to main content'),
      h('header', null, nav),
      main,
    )
    main.append(alerts.element, alerts.statusElement)
    try {
      await route.render(ctx)
    } catch (error) {
      if (ctx.isCurrent()) alerts.error(error)
    }
  }
}
