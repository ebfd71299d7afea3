import { expect } from 'vitest'
import { type Api, api } from '../api/helpers.js'

/** A browser's answer to a page or form: status, headers and body, redirects not followed. */
export interface PageAnswer {
  status: number
  headers: Headers
  text: string
  /** Every Set-Cookie header of the answer. */
  setCookies: string[]
}

let nextAddress = 1
/**
 * A client address of its own per call (the suites run with TRUST_PROXY=on), so the per-address
 * limit on failed sign-ins never carries over from one test to another.
 */
export function freshAddress(): string {
  nextAddress++
  return `203.0.${Math.floor(nextAddress / 250) % 250}.${(nextAddress % 250) + 1}`
}

export async function page(
  baseUrl: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array } = {},
): Promise<PageAnswer> {
  const res = await fetch(`${baseUrl}${path}`, { ...init, redirect: 'manual' })
  return {
    status: res.status,
    headers: res.headers,
    text: await res.text(),
    setCookies: res.headers.getSetCookie(),
  }
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

/** POST /app/login with the key, from its own client address unless one is given. */
export function postLogin(
  baseUrl: string,
  apiKey: string,
  headers: Record<string, string> = {},
): Promise<PageAnswer> {
  return page(baseUrl, '/app/login', {
    method: 'POST',
    headers: { ...FORM, 'x-forwarded-for': freshAddress(), ...headers },
    body: new URLSearchParams({ apiKey }).toString(),
  })
}

/** The `name=value` of the session cookie an answer set, or undefined. */
export function sessionCookieOf(answer: PageAnswer): string | undefined {
  const header = answer.setCookies.find((c) => c.startsWith('qrctl_session='))
  const pair = header?.split(';')[0]
  return pair && pair !== 'qrctl_session=' ? pair : undefined
}

/** A signed-in browser: its cookie, and the CSRF token its /app page was given. */
export interface Session {
  cookie: string
  csrfToken: string
}

/** The CSRF token in a page's `<meta name="csrf-token">`. */
export function csrfTokenOf(html: string): string | undefined {
  return html.match(/<meta name="csrf-token" content="([^"]*)">/)?.[1]
}

/** Signs in with the key through the form and opens /app, as a browser would. */
export async function signIn(baseUrl: string, apiKey: string): Promise<Session> {
  const login = await postLogin(baseUrl, apiKey)
  expect(login.status, login.text).toBe(303)
  return openApp(baseUrl, sessionCookieOf(login) as string)
}

export async function openApp(baseUrl: string, cookie: string): Promise<Session> {
  const app = await page(baseUrl, '/app', { headers: { cookie } })
  expect(app.status).toBe(200)
  const csrfToken = csrfTokenOf(app.text)
  expect(csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/)
  return { cookie, csrfToken: csrfToken as string }
}

/**
 * The API as the dashboard calls it: no Authorization header, the session cookie and (unless
 * `withToken` is false) its X-CSRF-Token.
 */
export function sessionApi(baseUrl: string, session: Session, withToken = true): Api {
  const client = api({ baseUrl }, '')
  const headers = (extra?: Record<string, string>) => ({
    cookie: session.cookie,
    ...(withToken ? { 'x-csrf-token': session.csrfToken } : {}),
    ...extra,
  })
  return {
    key: '',
    request: (method, path, options = {}) =>
      client.request(method, path, {
        ...options,
        key: options.key ?? null,
        headers: headers(options.headers),
      }),
    get: (path, options = {}) =>
      client.get(path, { ...options, key: options.key ?? null, headers: headers(options.headers) }),
    post: (path, body, options = {}) =>
      client.post(path, body, { ...options, key: options.key ?? null, headers: headers(options.headers) }),
    patch: (path, body, options = {}) =>
      client.patch(path, body, { ...options, key: options.key ?? null, headers: headers(options.headers) }),
    delete: (path, options = {}) =>
      client.delete(path, { ...options, key: options.key ?? null, headers: headers(options.headers) }),
  }
}

/** Signing out as the dashboard's button does: a form post with the token. */
export function postLogout(baseUrl: string, session: Session, csrfToken?: string): Promise<PageAnswer> {
  return page(baseUrl, '/app/logout', {
    method: 'POST',
    headers: { ...FORM, cookie: session.cookie },
    body: csrfToken === undefined ? '' : new URLSearchParams({ csrfToken }).toString(),
  })
}
