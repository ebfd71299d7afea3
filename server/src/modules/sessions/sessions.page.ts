import { escapeHtml as e, htmlDocument } from '../../lib/html.js'

/**
 * The server-rendered pages of /app: the sign-in form and the plain answers (bad request,
 * forbidden, not built …). No script at all; the one `<style>` carries the response's CSP nonce.
 */

const CSS = `
:root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
body { margin: 0; background: #f4f5f7; color: #1b1f24; }
main { max-width: 26rem; margin: 12vh auto 2rem; padding: 2rem 1.5rem; background: #fff;
  border: 1px solid #d0d5dc; border-radius: 8px; box-sizing: border-box; }
@media (max-width: 30rem) { main { margin: 1rem; } }
h1 { margin: 0 0 1rem; font-size: 1.5rem; }
p { line-height: 1.5; }
label { display: block; font-weight: 600; margin-bottom: .35rem; }
input { display: block; width: 100%; box-sizing: border-box; padding: .6rem; font: inherit;
  border: 1px solid #6b7380; border-radius: 4px; }
input:focus, button:focus { outline: 3px solid #1a56c4; outline-offset: 2px; }
button { margin-top: 1rem; padding: .6rem 1.2rem; font: inherit; font-weight: 600; color: #fff;
  background: #1a56c4; border: 0; border-radius: 4px; cursor: pointer; }
.alert { padding: .75rem; border-radius: 4px; background: #fdecec; color: #8a1010;
  border: 1px solid #e5a3a3; }
.hint { color: #4a515c; font-size: .9rem; }
code { font-size: .9em; }
`

function document(title: string, nonce: string, body: string): string {
  return htmlDocument({
    title,
    style: CSS,
    nonce,
    head: '<link rel="icon" href="data:,">\n',
    body: `${body}\n`,
  })
}

/** The sign-in form, with an error (`role=alert`) when the last attempt failed. */
export function renderLoginPage(nonce: string, error?: string): string {
  const alert = error ? `    <p class="alert" role="alert" id="login-error">${e(error)}</p>\n` : ''
  const described = error ? ' aria-describedby="login-error" aria-invalid="true"' : ''
  return document(
    'Sign in · qrctl',
    nonce,
    `    <h1>Sign in to qrctl</h1>
${alert}    <form method="post" action="/app/login">
      <label for="api-key">API key</label>
      <input id="api-key" name="apiKey" type="password" autocomplete="current-password" required
        spellcheck="false" autocapitalize="off"${described}>
      <button type="submit">Sign in</button>
    </form>
    <p class="hint">Your key is sent once to open a session; the browser never stores it.
      No key yet? Ask your administrator for a sign-in link (<code>qrctl-server admin login-link</code>).</p>`,
  )
}

/** A page that says what went wrong and where to go: a heading, a sentence, a link. */
export function renderMessagePage(
  nonce: string,
  page: { title: string; message: string; link?: { href: string; text: string } },
): string {
  const link = page.link ? `\n    <p><a href="${e(page.link.href)}">${e(page.link.text)}</a></p>` : ''
  return document(
    `${page.title} · qrctl`,
    nonce,
    `    <h1>${e(page.title)}</h1>
    <p>${e(page.message)}</p>${link}`,
  )
}
