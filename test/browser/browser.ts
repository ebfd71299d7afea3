import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Showcase, Template } from '@qrctl/contract'
import { type Browser, chromium } from 'playwright-core'
import { createCode, createShowcase, PHONE_UA, updateShowcase } from '../showcases/helpers.js'
import type { TestServer } from '../support/server.js'

/** Debian's chromium (CI installs it); never a downloaded browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM_PATH)

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  })
}

/** A person's phone: its user agent counts as a view (HeadlessChrome's would be a bot). */
export const PHONE = { viewport: { width: 390, height: 844 }, userAgent: PHONE_UA, deviceScaleFactor: 1 }
export const DESKTOP = { viewport: { width: 1280, height: 800 }, userAgent: PHONE_UA, deviceScaleFactor: 1 }

export interface ImageHost {
  /** e.g. http://127.0.0.1:4321 */
  url: string
  close(): Promise<void>
}

/**
 * Customers host their own logos and backgrounds; this stands in for that host on loopback,
 * drawing a logo (initials on a colour) or a soft background as SVG.
 */
export async function startImageHost(): Promise<ImageHost> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    const bg = `#${(url.searchParams.get('bg') ?? '333333').replace(/[^0-9a-f]/gi, '')}`
    const fg = `#${(url.searchParams.get('fg') ?? 'ffffff').replace(/[^0-9a-f]/gi, '')}`
    const text = (url.searchParams.get('text') ?? 'Q').replace(/[^A-Za-z&]/g, '').slice(0, 3)
    const svg = url.pathname.startsWith('/background')
      ? `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="800" viewBox="0 0 1200 800"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${bg}"/><stop offset="1" stop-color="${fg}"/></linearGradient></defs><rect width="1200" height="800" fill="url(#g)"/><circle cx="980" cy="160" r="260" fill="#ffffff" opacity=".12"/><circle cx="160" cy="700" r="320" fill="#000000" opacity=".08"/></svg>`
      : `<svg xmlns="http://www.w3.org/2000/svg" width="176" height="176" viewBox="0 0 176 176"><rect width="176" height="176" fill="${bg}"/><text x="88" y="88" dy=".35em" text-anchor="middle" font-family="Georgia, serif" font-size="${text.length > 2 ? 52 : 68}" font-weight="700" fill="${fg}">${text.replace('&', '&amp;')}</text></svg>`
    res.writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'max-age=3600' })
    res.end(svg)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

interface Sample {
  title: string
  description: string
  logo: { bg: string; fg: string; text: string }
  background?: { from: string; to: string }
  ctaButtons: { label: string; url: string }[]
  socialLinks: { platform: string; url: string }[]
}

/** One believable business per template, for the browser tests and the docs' screenshots. */
export const SAMPLES: Record<Template, Sample> = {
  minimal: {
    title: 'Northwind Books',
    description: 'An independent bookshop on Harbour Street.\nNew arrivals every Thursday, coffee all day.',
    logo: { bg: '1f2328', fg: 'ffffff', text: 'NB' },
    ctaButtons: [
      { label: 'Browse new arrivals', url: 'https://northwind.example/new' },
      { label: 'Opening hours', url: 'https://northwind.example/hours' },
    ],
    socialLinks: [
      { platform: 'Instagram', url: 'https://instagram.com/northwindbooks' },
      { platform: 'Facebook', url: 'https://facebook.com/northwindbooks' },
    ],
  },
  modern: {
    title: 'Pulse Fitness Studio',
    description: 'Small-group strength, spin and yoga. Your first class is on us.',
    logo: { bg: '4f46e5', fg: 'ffffff', text: 'P' },
    ctaButtons: [
      { label: 'Book a free class', url: 'https://pulse.example/free' },
      { label: 'See the timetable', url: 'https://pulse.example/timetable' },
    ],
    socialLinks: [
      { platform: 'Instagram', url: 'https://instagram.com/pulse' },
      { platform: 'TikTok', url: 'https://tiktok.com/@pulse' },
      { platform: 'YouTube', url: 'https://youtube.com/@pulse' },
    ],
  },
  bold: {
    title: 'Taco Loco',
    description: 'Street tacos from the yellow truck. Tuesday to Saturday, 11 till late.',
    logo: { bg: '111111', fg: 'fde047', text: 'TL' },
    ctaButtons: [
      { label: 'Order ahead', url: 'https://tacoloco.example/order' },
      { label: 'Find the truck', url: 'https://tacoloco.example/where' },
    ],
    socialLinks: [
      { platform: 'Instagram', url: 'https://instagram.com/tacoloco' },
      { platform: 'X', url: 'https://x.com/tacoloco' },
    ],
  },
  professional: {
    title: 'Hartley & Moss Accountants',
    description:
      'Chartered accountants for small businesses and sole traders since 1998. Tax returns, payroll and advice you can plan on.',
    logo: { bg: '0b3d91', fg: 'ffffff', text: 'H&M' },
    ctaButtons: [
      { label: 'Book a consultation', url: 'https://hartleymoss.example/book' },
      { label: 'Our services', url: 'https://hartleymoss.example/services' },
    ],
    socialLinks: [
      { platform: 'LinkedIn', url: 'https://linkedin.com/company/hartleymoss' },
      { platform: 'Website', url: 'https://hartleymoss.example' },
    ],
  },
  dark: {
    title: 'Neon Nights Festival',
    description: 'Three nights, two stages, one harbour.\n14–16 August.',
    logo: { bg: '34d399', fg: '0b0d12', text: 'NN' },
    ctaButtons: [
      { label: 'Get tickets', url: 'https://neonnights.example/tickets' },
      { label: 'See the line-up', url: 'https://neonnights.example/lineup' },
    ],
    socialLinks: [
      { platform: 'Instagram', url: 'https://instagram.com/neonnights' },
      { platform: 'Spotify', url: 'https://open.spotify.com/neonnights' },
      { platform: 'YouTube', url: 'https://youtube.com/@neonnights' },
    ],
  },
}

/** A showcase in `template` with the sample business's every field filled in. */
export async function createSampleShowcase(
  server: TestServer,
  images: ImageHost,
  template: Template,
  extra: Record<string, unknown> = {},
): Promise<Showcase> {
  const sample = SAMPLES[template]
  const code = await createCode(server, undefined, { name: sample.title, content: sample.ctaButtons[0]?.url })
  const logo = new URLSearchParams(sample.logo)
  const created = await createShowcase(server, {
    qrCodeId: code.id,
    title: sample.title,
    description: sample.description,
    template,
    logoUrl: `${images.url}/logo.svg?${logo}`,
    ...(sample.background && {
      customBackgroundUrl: `${images.url}/background.svg?bg=${sample.background.from}&fg=${sample.background.to}`,
    }),
    ...extra,
  })
  return updateShowcase(server, created.id, {
    ctaButtons: sample.ctaButtons,
    socialLinks: sample.socialLinks,
  })
}
