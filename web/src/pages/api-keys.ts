import type { ApiKey } from '@qrctl/sdk'
import { field, formatDateTime, h, select } from '../dom.js'
import type { PageCtx } from '../router.js'
import { actionTable, confirmDialog, onSubmit, secretBox, tableWrap } from '../widgets.js'

const SCOPES = [
  ['read_write', 'Read and write'],
  ['read', 'Read only'],
  ['write', 'Write only'],
] as const

/**
 * API keys (DESIGN §3, §19): "Create key" opens a form ("Name", "Create"); the new secret is
 * shown once in a read-only textbox with "Copy". Rotate and revoke per key.
 */
export async function renderApiKeys(ctx: PageCtx): Promise<void> {
  const { qrctl, alerts, main } = ctx
  ctx.heading('API keys')

  const name = h('input', { type: 'text', name: 'name', required: true, maxlength: 100, autocomplete: 'off' })
  const environment = h('input', { type: 'text', name: 'environment', maxlength: 50, autocomplete: 'off' })
  const scope = select({ name: 'scope' }, SCOPES, 'read_write')
  const create = h('button', { type: 'submit' }, 'Create')
  const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel')
  const form = h(
    'form',
    { class: 'card', id: 'new-key-form', hidden: true, 'aria-labelledby': 'new-key', novalidate: true },
    h('h2', { id: 'new-key' }, 'New key'),
    h(
      'div',
      { class: 'grid' },
      field('Name', name),
      field('Scope', scope),
      field('Environment', environment, { hint: 'Optional label, e.g. production.' }),
    ),
    h('p', { class: 'actions' }, create, cancel),
  )
  const open = h(
    'button',
    { type: 'button', 'aria-expanded': 'false', 'aria-controls': 'new-key-form' },
    'Create key',
  )
  const secret = h('div', { class: 'created-secret' })
  const results = h('div')
  main.append(
    h(
      'p',
      { class: 'hint' },
      'Keys let scripts and servers use the API. The dashboard itself never stores a key: it signs in once and keeps a session.',
    ),
    h('p', { class: 'actions' }, open),
    form,
    secret,
    results,
  )

  const showForm = (shown: boolean) => {
    form.hidden = !shown
    open.setAttribute('aria-expanded', String(shown))
    if (shown) name.focus()
    else open.focus()
  }
  open.addEventListener('click', () => {
    secret.replaceChildren()
    showForm(form.hidden)
  })
  cancel.addEventListener('click', () => showForm(false))

  onSubmit(form, create, alerts, async () => {
    const key = await qrctl.apiKeys.create({
      name: name.value.trim(),
      scope: scope.value as ApiKey['scope'],
      ...(environment.value.trim() && { environment: environment.value.trim() }),
    })
    form.reset()
    form.hidden = true
    open.setAttribute('aria-expanded', 'false')
    showSecret(key.name, key.secret)
    await load()
  })

  function showSecret(keyName: string, value: string): void {
    const box = secretBox(
      'Secret',
      value,
      `The secret of “${keyName}”. Copy it now: it is shown this once and cannot be read again.`,
    )
    secret.replaceChildren(box)
    box.querySelector('input')?.focus()
  }

  async function load(): Promise<void> {
    const keys = await qrctl.apiKeys.list()
    if (!ctx.isCurrent()) return
    const table = actionTable(
      'API keys',
      ['Name', 'Key', 'Scope', 'Environment', 'Created', 'Last used', 'Expires'],
      keys.map((key) =>
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, key.name),
          h('td', null, h('code', null, `${key.prefix}…${key.lastFour}`)),
          h('td', null, SCOPES.find(([value]) => value === key.scope)?.[1] ?? key.scope),
          h('td', null, key.environment ?? '—'),
          h('td', null, formatDateTime(key.createdAt)),
          h('td', null, formatDateTime(key.lastUsedAt)),
          h('td', null, key.expiresAt ? formatDateTime(key.expiresAt) : 'Never'),
          h(
            'td',
            { class: 'row-actions' },
            h(
              'button',
              {
                type: 'button',
                class: 'secondary small',
                'aria-label': `Rotate ${key.name}`,
                onclick: () => rotate(key),
              },
              'Rotate',
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'danger small',
                'aria-label': `Revoke ${key.name}`,
                onclick: () => revoke(key),
              },
              'Revoke',
            ),
          ),
        ),
      ),
    )
    results.replaceChildren(
      keys.length === 0 ? h('p', { class: 'empty' }, 'No keys.') : tableWrap(table, 'API keys'),
    )
  }

  async function rotate(key: ApiKey): Promise<void> {
    const sure = await confirmDialog(
      `Rotate “${key.name}”? A new secret replaces it and the old one stops working now. If you signed in with it, you will be signed out.`,
      'Rotate',
    )
    if (!sure) return
    alerts.clear()
    try {
      const rotated = await qrctl.apiKeys.rotate(key.id)
      showSecret(rotated.name, rotated.secret)
      await load()
    } catch (error) {
      alerts.error(error)
    }
  }

  async function revoke(key: ApiKey): Promise<void> {
    const sure = await confirmDialog(
      `Revoke “${key.name}”? Everything using it stops working at once. If you signed in with it, you will be signed out.`,
      'Revoke',
    )
    if (!sure) return
    alerts.clear()
    try {
      await qrctl.apiKeys.revoke(key.id)
      await load()
      alerts.status(`“${key.name}” is revoked.`)
    } catch (error) {
      alerts.error(error)
    }
  }

  await load()
}
