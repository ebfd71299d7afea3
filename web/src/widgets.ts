import type { Alerts } from './api.js'
import { type Child, formatNumber, h, uid } from './dom.js'

/** A table in a region that scrolls sideways on its own, so the page never does (390 px). */
/**
 * A table of `rows` under a header row of `columns` and a last "Actions" column, with a
 * caption screen readers announce (both hidden on screen).
 */
export function actionTable(caption: string, columns: readonly string[], rows: Child): HTMLTableElement {
  return h(
    'table',
    null,
    h('caption', { class: 'visually-hidden' }, caption),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        columns.map((t) => h('th', { scope: 'col' }, t)),
        h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
      ),
    ),
    h('tbody', null, rows),
  )
}

export function tableWrap(table: HTMLTableElement, label: string): HTMLDivElement {
  return h('div', { class: 'table-wrap', role: 'region', 'aria-label': label, tabindex: '0' }, table)
}

/** A column header that sorts: a button inside `th`, with `aria-sort` on the `th`. */
export function sortHeader(label: string, key: string, current: string, sort: (next: string) => void) {
  const direction = current === key ? 'ascending' : current === `-${key}` ? 'descending' : 'none'
  const next = direction === 'descending' ? key : `-${key}`
  return h(
    'th',
    { scope: 'col', 'aria-sort': direction },
    h(
      'button',
      { type: 'button', class: 'sort', onclick: () => sort(next) },
      label,
      h(
        'span',
        { class: 'sort-mark', 'aria-hidden': 'true' },
        direction === 'ascending' ? ' ▲' : direction === 'descending' ? ' ▼' : '',
      ),
    ),
  )
}

export function pager(options: {
  page: number
  pageCount: number
  total: number
  from: number
  to: number
  noun: string
  go(page: number): void
}): HTMLElement {
  const { page, pageCount, total } = options
  // A group, not a second `nav`: every page has exactly one navigation landmark (DESIGN §19).
  return h(
    'div',
    { class: 'pager', role: 'group', 'aria-label': 'Pages' },
    h(
      'p',
      null,
      total === 0
        ? `0 ${options.noun}`
        : `${formatNumber(options.from)}–${formatNumber(options.to)} of ${formatNumber(total)} ${options.noun} · page ${formatNumber(page)} of ${formatNumber(pageCount)}`,
    ),
    h(
      'button',
      { type: 'button', class: 'secondary', disabled: page <= 1, onclick: () => options.go(page - 1) },
      'Previous page',
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        disabled: page >= pageCount,
        onclick: () => options.go(page + 1),
      },
      'Next page',
    ),
  )
}

/**
 * Asks before something that cannot be undone, in a modal `<dialog>` (Escape cancels, focus
 * stays inside). Resolves true when confirmed.
 */
export function confirmDialog(message: string, confirmLabel: string): Promise<boolean> {
  const titleId = uid('dlg')
  const dialog = h(
    'dialog',
    { 'aria-labelledby': titleId, class: 'confirm' },
    h('p', { id: titleId }, message),
    h(
      'form',
      { method: 'dialog', class: 'actions' },
      h('button', { value: 'confirm', class: 'danger' }, confirmLabel),
      h('button', { value: 'cancel', class: 'secondary', autofocus: true }, 'Cancel'),
    ),
  )
  document.body.append(dialog)
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'confirm')
      dialog.remove()
    })
    dialog.showModal()
  })
}

/**
 * A secret shown once: a read-only textbox and a button "Copy" (DESIGN §19). The secret lives
 * in this element only; nothing stores it.
 */
export function secretBox(label: string, secret: string, note: string): HTMLElement {
  const input = h('input', {
    type: 'text',
    readonly: true,
    value: secret,
    class: 'secret',
    spellcheck: 'false',
  })
  input.id = uid('secret')
  const copied = h('span', { role: 'status', class: 'hint' })
  const copy = h('button', { type: 'button' }, 'Copy')
  copy.addEventListener('click', async () => {
    input.select()
    try {
      await navigator.clipboard.writeText(secret)
      copied.textContent = 'Copied.'
    } catch {
      copied.textContent = 'Press Ctrl+C (⌘C) to copy the selected text.'
    }
  })
  input.addEventListener('focus', () => input.select())
  return h(
    'div',
    { class: 'secret-box' },
    h('label', { for: input.id }, label),
    h('div', { class: 'inline' }, input, copy),
    h('p', { class: 'hint' }, note),
    copied,
  )
}

/** A top list as horizontal bars, each with its name and count as text. */
export function bars(title: string, items: readonly { name: string; count: number }[]): HTMLElement {
  const max = Math.max(1, ...items.map((item) => item.count))
  const headingId = uid('bars')
  return h(
    'section',
    { class: 'bars', 'aria-labelledby': headingId },
    h('h3', { id: headingId }, title),
    items.length === 0
      ? h('p', { class: 'hint' }, 'No scans in this window.')
      : h(
          'ol',
          null,
          items.map((item) => {
            const bar = h('span', { class: 'bar', 'aria-hidden': 'true' })
            bar.style.width = `${Math.max(2, (item.count / max) * 100)}%`
            return h(
              'li',
              null,
              h(
                'span',
                { class: 'bar-label' },
                h('span', null, item.name),
                h('span', { class: 'count' }, formatNumber(item.count)),
              ),
              h('span', { class: 'bar-track' }, bar),
            )
          }),
        ),
  )
}

/**
 * The one way a page's form is submitted: the browser's own submit prevented, the page's alerts
 * cleared, `button` disabled while `action` runs (no double create), and a failed call shown in
 * the alerts and beside the fields it names.
 */
export function onSubmit(
  form: HTMLFormElement,
  button: HTMLButtonElement,
  alerts: Alerts,
  action: () => Promise<void>,
): void {
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    alerts.clear()
    button.disabled = true
    try {
      await action()
    } catch (error) {
      alerts.status('')
      alerts.error(error, form)
    } finally {
      button.disabled = false
    }
  })
}
