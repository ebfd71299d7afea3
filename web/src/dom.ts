/**
 * A small element builder. The page's CSP (`style-src 'self'`) refuses inline style
 * attributes, so nothing here ever sets one: looks come from classes in styles.css, and the
 * few computed sizes (bar widths) are set through `element.style`, which CSP allows.
 */

export type Child = Node | string | number | false | null | undefined | Child[]
type Listener = (event: Event) => void
export type Attrs = Record<string, string | number | boolean | Listener | null | undefined>

/** Properties set after the children, so a `<select>`'s value can name one of its options. */
const PROPERTIES = new Set(['value', 'checked', 'selected', 'indeterminate'])

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    if (Array.isArray(child)) append(parent, child)
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)))
  }
}

/**
 * `h('a', { href: '/app', class: 'nav' }, 'QR codes')`. `on…` attributes become listeners,
 * `true` an empty attribute, `false`/`null`/`undefined` no attribute.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  const later: [string, unknown][] = []
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue
    if (name === 'style') throw new Error('inline styles break the CSP: use a class')
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value)
    else if (PROPERTIES.has(name)) later.push([name, value])
    else element.setAttribute(name, value === true ? '' : String(value))
  }
  append(element, children)
  for (const [name, value] of later) (element as unknown as Record<string, unknown>)[name] = value
  return element
}

let ids = 0
/** A page-unique id for label/aria wiring. */
export function uid(prefix = 'f'): string {
  ids += 1
  return `${prefix}-${ids}`
}

/** A labelled control: `<div class="field"><label for=…>Label</label>CONTROL hint</div>`. */
export function field(
  label: string,
  control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement,
  options: { hint?: string; name?: string; className?: string } = {},
): HTMLDivElement {
  if (!control.id) control.id = uid()
  const wrapper = h(
    'div',
    { class: `field ${options.className ?? ''}`.trim(), 'data-field': options.name ?? control.name },
    h('label', { for: control.id }, label),
    control,
  )
  if (options.hint) {
    const hint = h('p', { class: 'hint', id: uid('hint') }, options.hint)
    control.setAttribute('aria-describedby', hint.id)
    wrapper.append(hint)
  }
  return wrapper
}

/** `<select>` with `[value, text]` options. */
export function select(
  attrs: Attrs,
  options: readonly (readonly [string, string])[],
  selected?: string,
): HTMLSelectElement {
  return h(
    'select',
    { ...attrs, value: selected ?? null },
    options.map(([value, text]) => h('option', { value }, text)),
  )
}

/** A checkbox or radio with its label after it. */
export function check(
  label: string,
  attrs: Attrs & { type?: 'checkbox' | 'radio' },
): { wrapper: HTMLLabelElement; input: HTMLInputElement } {
  const input = h('input', { type: 'checkbox', ...attrs })
  return { wrapper: h('label', { class: 'check' }, input, h('span', null, label)), input }
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' })
const integer = new Intl.NumberFormat()

export function formatDateTime(iso: string | null | undefined): string {
  return iso ? dateTime.format(new Date(iso)) : '—'
}
export function formatDate(iso: string): string {
  return dateOnly.format(new Date(iso))
}
export function formatNumber(value: number): string {
  return integer.format(value)
}
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatNumber(count)} ${count === 1 ? one : many}`
}

/** A file name after a code's name: letters, digits, `-` and `_` only. */
export function fileNameOf(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/\s+/g, '-')
    .slice(0, 80)
  return base || 'qr-code'
}
