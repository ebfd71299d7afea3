import {
  Qrctl,
  QrctlApiError,
  QrctlAuthenticationError,
  QrctlConnectionError,
  QrctlUnscannableError,
  QrctlValidationError,
} from '@qrctl/sdk'
import { h } from './dom.js'

/** The session's CSRF token, which the server wrote into the page (DESIGN §19). */
export function csrfToken(): string {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')
  return meta?.content ?? ''
}

/**
 * The one API client of the page, in session mode: the cookie goes along by itself, the token
 * as X-CSRF-Token; no key ever reaches the browser.
 */
export function createClient(): Qrctl {
  return new Qrctl({ baseUrl: location.origin, csrfToken: csrfToken(), maxRetries: 1 })
}

/** The session has ended (signed out elsewhere, expired, its key revoked): back to the sign-in page. */
export function isSessionOver(error: unknown): boolean {
  return error instanceof QrctlAuthenticationError
}

/**
 * The `role=alert` region of a page: the server's message and details of a failed call, and
 * the same messages beside the fields they name (`[data-field="targetUrl"]`).
 */
export class Alerts {
  readonly element: HTMLDivElement
  readonly #status: HTMLDivElement
  #marked: HTMLElement[] = []

  constructor() {
    this.element = h('div', { role: 'alert', class: 'alerts' })
    this.#status = h('div', { role: 'status', class: 'status' })
  }

  /** The polite region for "Saved" and progress messages. */
  get statusElement(): HTMLDivElement {
    return this.#status
  }

  clear(): void {
    this.element.replaceChildren()
    this.element.classList.remove('shown')
    for (const element of this.#marked) {
      element.querySelector('.field-error')?.remove()
      const control = element.querySelector('input, select, textarea')
      control?.removeAttribute('aria-invalid')
      const described = control
        ?.getAttribute('aria-describedby')
        ?.replace(/\bferr-\S+/g, '')
        .trim()
      if (control && described) control.setAttribute('aria-describedby', described)
      else control?.removeAttribute('aria-describedby')
    }
    this.#marked = []
  }

  /** A message of our own (not from the API). */
  message(text: string): void {
    this.clear()
    this.element.append(h('p', null, text))
    this.element.classList.add('shown')
  }

  status(text: string): void {
    this.#status.textContent = text
  }

  /**
   * Shows a failed call. Field issues also go next to the fields of `form` whose `data-field`
   * is the issue's path (or its longest prefix). A signed-out session goes to the sign-in page.
   */
  error(error: unknown, form?: HTMLElement): void {
    if (isSessionOver(error)) {
      location.assign('/app/login')
      return
    }
    this.clear()
    const parts: HTMLElement[] = []
    if (error instanceof QrctlApiError) {
      parts.push(h('p', null, error.message))
      if (error instanceof QrctlValidationError && error.issues.length > 0) {
        parts.push(
          h(
            'ul',
            null,
            error.issues.map((issue) =>
              h('li', null, issue.path ? `${issue.path}: ${issue.message}` : issue.message),
            ),
          ),
        )
        if (form) for (const issue of error.issues) this.#markField(form, issue.path, issue.message)
      }
      if (error instanceof QrctlUnscannableError && error.checks.length > 0) {
        parts.push(
          h(
            'ul',
            null,
            error.checks.map((c) =>
              h('li', null, `${c.size} px, ${c.decoder}: ${c.ok ? 'read' : 'did not read'}`),
            ),
          ),
        )
      }
      if (error.requestId) parts.push(h('p', { class: 'hint' }, `Request id: ${error.requestId}`))
    } else if (error instanceof QrctlConnectionError) {
      parts.push(h('p', null, `The server did not answer: ${error.message}`))
    } else {
      parts.push(h('p', null, error instanceof Error ? error.message : String(error)))
    }
    this.element.append(...parts)
    this.element.classList.add('shown')
  }

  #markField(form: HTMLElement, path: string, message: string): void {
    const segments = path.split('.')
    for (let n = segments.length; n > 0; n--) {
      const name = segments.slice(0, n).join('.')
      const wrapper = form.querySelector<HTMLElement>(`[data-field="${CSS.escape(name)}"]`)
      if (!wrapper) continue
      const id = `ferr-${Math.random().toString(36).slice(2, 9)}`
      const existing = wrapper.querySelector('.field-error')
      const note = existing ?? h('p', { class: 'field-error', id })
      note.textContent = existing ? `${existing.textContent} ${message}` : message
      if (!existing) wrapper.append(note)
      const control = wrapper.querySelector('input, select, textarea')
      if (control) {
        control.setAttribute('aria-invalid', 'true')
        const described = control.getAttribute('aria-describedby')
        control.setAttribute('aria-describedby', `${described ? `${described} ` : ''}${note.id}`)
      }
      this.#marked.push(wrapper)
      return
    }
  }
}

/** blob: URLs of one page, revoked when the page is left. */
export class BlobUrls {
  #urls: string[] = []

  make(bytes: Uint8Array, type: string): string {
    const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type }))
    this.#urls.push(url)
    return url
  }

  revoke(url: string | undefined): void {
    if (!url) return
    URL.revokeObjectURL(url)
    this.#urls = this.#urls.filter((kept) => kept !== url)
  }

  revokeAll(): void {
    for (const url of this.#urls) URL.revokeObjectURL(url)
    this.#urls = []
  }
}
