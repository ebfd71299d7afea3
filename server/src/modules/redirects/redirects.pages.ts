import { escapeHtml, htmlDocument } from '../../lib/html.js'

const STYLE = `
  :root { color-scheme: light dark; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: #f5f6f8; color: #1d2330; }
  main { max-width: 28rem; margin: 1.5rem; padding: 2rem; border-radius: 16px; background: #fff;
         box-shadow: 0 1px 3px rgb(0 0 0 / 0.12); text-align: center; }
  .mark { font-size: 2.5rem; line-height: 1; margin: 0 0 1rem; }
  h1 { font-size: 1.35rem; margin: 0 0 0.75rem; }
  p { margin: 0; line-height: 1.5; color: #4a5263; }
  code { font-size: 0.95em; }
  form { margin: 1.25rem 0 0; display: grid; gap: 0.75rem; }
  input[type=password] { font: inherit; padding: 0.7rem 0.8rem; border: 1px solid #c5cad6; border-radius: 10px; }
  button { font: inherit; font-weight: 600; padding: 0.7rem; border: 0; border-radius: 10px; background: #1d4ed8; color: #fff; }
  .error { color: #b42318; margin-top: 1rem; }
  @media (prefers-color-scheme: dark) {
    body { background: #14171f; color: #e8eaf0; }
    main { background: #1e222c; box-shadow: none; }
    p { color: #aab1c0; }
  }`

function page(title: string, mark: string, message: string, extra = ''): string {
  return htmlDocument({
    title,
    style: STYLE,
    body: `<p class="mark" aria-hidden="true">${mark}</p>
<h1>${escapeHtml(title)}</h1>
<p>${message}</p>
${extra}`,
  })
}

export const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Robots-Tag': 'noindex',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
}

/** 404: no code has this short link (perhaps a typo in a hand-typed link). */
export function notFoundPage(shortCode: string | undefined): string {
  const what = shortCode ? `<code>${escapeHtml(shortCode)}</code>` : 'this link'
  return page(
    'This QR code link does not exist',
    '?',
    `We could not find ${what}. Check that the link was typed or scanned completely.`,
  )
}

/** 410: the code exists but was switched off: deleted, paused, or its account is not active. */
export function gonePage(): string {
  return page(
    'This code is no longer active',
    '&#8856;',
    'The owner of this QR code has switched it off, so it no longer leads anywhere. ' +
      'If you expected it to work, contact whoever printed it.',
  )
}

/** 500: the lookup failed; scanning again usually helps. */
export function errorPage(): string {
  return page(
    'Something went wrong',
    '!',
    'We could not open this code just now. Please scan it again in a moment.',
  )
}

/** 503: the database cannot be reached just now; the link itself is fine. */
export function unavailablePage(): string {
  return page(
    'This link is briefly unavailable',
    '&#8987;',
    'We could not look up this code just now. Please scan it again in a few seconds.',
  )
}

/** 410: the code's `expiresAt` has passed and it has no `expiredUrl` (DESIGN §14). */
export function expiredPage(): string {
  return page(
    'This code has expired',
    '&#8987;',
    'The campaign behind this QR code has ended, so it no longer leads anywhere.',
  )
}

/** 410: the code's `maxScans` are used up and it has no `afterLimitUrl` (DESIGN §14). */
export function limitReachedPage(): string {
  return page(
    'This code has reached its scan limit',
    '&#10003;',
    'This QR code could only be used a limited number of times, and all of them have been used. ' +
      'Thank you for your interest.',
  )
}

/**
 * The password page (200), or again after a wrong password (401). The form posts to the same
 * short link with the scan's query string, and carries the referrer of the first request so
 * the scan keeps it. The destination is never on this page.
 */
export function passwordPage(action: string, referrer: string, wrong: boolean): string {
  const form = `<form method="post" action="${escapeHtml(action)}">
<input type="password" name="password" aria-label="Password" placeholder="Password" autocomplete="current-password" required autofocus>
<input type="hidden" name="referrer" value="${escapeHtml(referrer)}">
<button type="submit">Continue</button>
</form>
${wrong ? '<p class="error" role="alert">That password is not right. Please try again.</p>\n' : ''}`
  return page('This code is protected', '&#128274;', 'Enter the password you were given to continue.', form)
}

/** 429: too many wrong passwords from this address for this code. */
export function lockedPage(retryAfter: number): string {
  const minutes = Math.ceil(retryAfter / 60)
  return page(
    'Too many tries',
    '&#8987;',
    `Too many wrong passwords were entered for this code. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
  )
}

/** 400: a password form that is not one (too large, or not form-encoded). */
export function badFormPage(): string {
  return page('This form could not be read', '!', 'Please go back, scan the code again and retry.')
}

/**
 * The password page may post its form to this site, and the answer's redirect may lead
 * anywhere (browsers hold a form's redirect to `form-action` too); it runs no script.
 */
export const PASSWORD_PAGE_HEADERS = {
  ...PAGE_HEADERS,
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self' https: http:; frame-ancestors 'none'",
}
