/** The dashboard's session cookie (DESIGN §19). */
export const SESSION_COOKIE = 'qrctl_session'

/** 32 random bytes in base64url: the shape of every session id, CSRF token and login-link token. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/

/**
 * The session id of a `Cookie` header: the first `qrctl_session` of the right shape, or
 * undefined. Nothing else of the header is parsed.
 */
export function readSessionCookie(header: string | undefined): string | undefined {
  if (!header?.includes(SESSION_COOKIE)) return undefined
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=')
    if (at === -1 || pair.slice(0, at).trim() !== SESSION_COOKIE) continue
    const value = pair.slice(at + 1).trim()
    if (TOKEN_PATTERN.test(value)) return value
  }
  return undefined
}

export interface CookieOptions {
  /** `Secure`: when PUBLIC_BASE_URL is https, so the cookie never travels in clear. */
  isSecure: boolean
  /** Seconds the browser keeps it; 0 clears it. */
  maxAge: number
}

/**
 * `Set-Cookie` for the session: out of scripts' reach (`HttpOnly`), never sent by another site's
 * request (`SameSite=Strict`), for the whole origin, since the API is at /api/v1 and the pages at /app.
 */
export function sessionCookie(value: string, options: CookieOptions): string {
  const parts = [
    `${SESSION_COOKIE}=${value}`,
    'HttpOnly',
    'SameSite=Strict',
    'Path=/',
    `Max-Age=${options.maxAge}`,
  ]
  if (options.isSecure) parts.push('Secure')
  return parts.join('; ')
}

export function clearedSessionCookie(isSecure: boolean): string {
  return sessionCookie('', { isSecure, maxAge: 0 })
}
