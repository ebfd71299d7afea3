import type { QrCode, Showcase } from '@qrctl/contract'
import jsQR from 'jsqr'
import { PNG } from 'pngjs'
import type { TestServer } from '../support/server.js'

/** A phone browser's user agent: page views from it count (a bare fetch says "node", a bot). */
export const PHONE_UA =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36'

export interface ApiResponse<T = unknown> {
  status: number
  body: T
  headers: Headers
}

/** One JSON call to /api/v1 with a key (the server's own by default). */
export async function api<T = unknown>(
  server: TestServer,
  method: string,
  path: string,
  opts: { body?: unknown; key?: string } = {},
): Promise<ApiResponse<T>> {
  const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${opts.key ?? server.apiKey}`,
      ...(opts.body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(opts.body !== undefined && { body: JSON.stringify(opts.body) }),
  })
  const text = await res.text()
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T, headers: res.headers }
}

export async function createCode(
  server: TestServer,
  key?: string,
  input: Record<string, unknown> = {},
): Promise<QrCode> {
  const res = await api<{ data: QrCode }>(server, 'POST', '/qr-codes', {
    ...(key && { key }),
    body: {
      name: 'Menu',
      contentType: 'url',
      content: 'https://example.com/menu',
      type: 'dynamic',
      ...input,
    },
  })
  if (res.status !== 201)
    throw new Error(`creating a code answered ${res.status}: ${JSON.stringify(res.body)}`)
  return res.body.data
}

export async function createShowcase(
  server: TestServer,
  input: Record<string, unknown>,
  key?: string,
): Promise<Showcase> {
  const res = await api<{ data: Showcase }>(server, 'POST', '/showcases', {
    ...(key && { key }),
    body: input,
  })
  if (res.status !== 201)
    throw new Error(`creating a showcase answered ${res.status}: ${JSON.stringify(res.body)}`)
  return res.body.data
}

export async function updateShowcase(
  server: TestServer,
  id: string,
  patch: Record<string, unknown>,
): Promise<Showcase> {
  const res = await api<{ data: Showcase }>(server, 'PATCH', `/showcases/${id}`, { body: patch })
  if (res.status !== 200)
    throw new Error(`updating a showcase answered ${res.status}: ${JSON.stringify(res.body)}`)
  return res.body.data
}

export async function getShowcase(server: TestServer, id: string): Promise<Showcase> {
  const res = await api<{ data: Showcase }>(server, 'GET', `/showcases/${id}`)
  if (res.status !== 200) throw new Error(`reading a showcase answered ${res.status}`)
  return res.body.data
}

/** A public page or image, as a person's phone asks for it (unless `ua` says otherwise). */
export function visit(
  url: string,
  init: { ua?: string; method?: string; headers?: Record<string, string> } = {},
) {
  return fetch(url, {
    method: init.method ?? 'GET',
    headers: { 'user-agent': init.ua ?? PHONE_UA, ...init.headers },
  })
}

/** The text a PNG's QR code holds, through a real decoder. */
export function decodeQrPng(bytes: Uint8Array): string | undefined {
  const png = PNG.sync.read(Buffer.from(bytes))
  return jsQR.default(new Uint8ClampedArray(png.data), png.width, png.height)?.data
}
