import { WEBHOOK_EVENT_TYPES } from '@qrctl/contract'
import type { Webhook, WebhookDelivery } from '@qrctl/sdk'
import { check, field, formatDateTime, h } from '../dom.js'
import type { PageCtx } from '../router.js'
import { actionTable, confirmDialog, onSubmit, pager, secretBox, tableWrap } from '../widgets.js'

const PAGE_SIZE = 25

function status(webhook: Webhook): string {
  if (webhook.isActive) return 'Active'
  if (webhook.disabledReason === 'gone') return 'Disabled: the endpoint answered 410 Gone'
  if (webhook.disabledReason === 'failing') return 'Disabled: too many failed deliveries'
  return 'Inactive'
}

/** Webhooks (DESIGN §15, §19): the list and a form for a new one, whose secret is shown once. */
export async function renderWebhooks(ctx: PageCtx): Promise<void> {
  const { qrctl, alerts, main } = ctx
  ctx.heading('Webhooks')

  const url = h('input', { type: 'url', name: 'url', required: true, spellcheck: 'false' })
  const description = h('input', { type: 'text', name: 'description', maxlength: 500 })
  const all = check('All events', { name: 'events', value: '*', checked: true })
  const types = WEBHOOK_EVENT_TYPES.map((type) => check(type, { name: 'events', value: type }))
  const events = h(
    'fieldset',
    { 'data-field': 'events', class: 'events' },
    h('legend', null, 'Events'),
    all.wrapper,
    types.map((t) => t.wrapper),
  )
  const syncEvents = () => {
    for (const t of types) t.input.disabled = all.input.checked
  }
  all.input.addEventListener('change', syncEvents)
  syncEvents()
  const create = h('button', { type: 'submit' }, 'Create webhook')
  const secret = h('div', { class: 'created-secret' })
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'new-webhook', novalidate: true },
    h('h2', { id: 'new-webhook' }, 'New webhook'),
    h(
      'div',
      { class: 'grid' },
      field('URL', url, { hint: 'An http(s) endpoint of yours; deliveries are signed (Standard Webhooks).' }),
      field('Description', description),
    ),
    events,
    h('p', { class: 'actions' }, create),
    secret,
  )
  const results = h('div')
  main.append(
    h(
      'section',
      { 'aria-labelledby': 'webhook-list' },
      h('h2', { id: 'webhook-list' }, 'Your webhooks'),
      results,
    ),
    form,
  )

  onSubmit(form, create, alerts, async () => {
    secret.replaceChildren()
    const chosen = all.input.checked ? ['*'] : types.filter((t) => t.input.checked).map((t) => t.input.value)
    const webhook = await qrctl.webhooks.create({
      url: url.value.trim(),
      events: chosen as Webhook['events'],
      ...(description.value.trim() && { description: description.value.trim() }),
    })
    secret.replaceChildren(
      secretBox(
        'Signing secret',
        webhook.secret,
        'Copy it now: it is shown this once. Your endpoint checks each delivery’s signature with it.',
      ),
      h('p', null, h('a', { href: `/app/webhooks/${webhook.id}` }, `Open ${webhook.url}`)),
    )
    url.value = ''
    description.value = ''
    await load()
  })

  async function load(): Promise<void> {
    const answer = await qrctl.webhooks.list({ limit: 100 })
    if (!ctx.isCurrent()) return
    const table = h(
      'table',
      null,
      h('caption', { class: 'visually-hidden' }, 'Webhooks'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['URL', 'Events', 'Status', 'Created'].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h(
        'tbody',
        null,
        answer.data.map((webhook) =>
          h(
            'tr',
            null,
            h('th', { scope: 'row' }, h('a', { href: `/app/webhooks/${webhook.id}` }, webhook.url)),
            h('td', null, webhook.events.join(', ')),
            h('td', null, status(webhook)),
            h('td', null, formatDateTime(webhook.createdAt)),
          ),
        ),
      ),
    )
    results.replaceChildren(
      answer.total === 0
        ? h(
            'p',
            { class: 'empty' },
            'No webhooks yet: a webhook sends your server an event for each scan or change.',
          )
        : tableWrap(table, 'Webhooks'),
    )
  }
  await load()
}

/** One webhook: its settings, test, rotate, enable/disable, delete, and the delivery log. */
export async function renderWebhook(ctx: PageCtx): Promise<void> {
  const { qrctl, alerts, main } = ctx
  let webhook: Webhook
  try {
    webhook = await qrctl.webhooks.get(ctx.params[0] ?? '')
  } catch (error) {
    ctx.heading('Webhook not found')
    main.append(h('p', null, h('a', { href: '/app/webhooks' }, 'Back to the webhooks')))
    alerts.error(error)
    return
  }
  if (!ctx.isCurrent()) return
  ctx.heading(`Webhook ${webhook.url}`)
  let page = 1
  const facts = h('dl', { class: 'facts' })
  const secret = h('div', { class: 'created-secret' })
  const log = h('div')
  const showFacts = () =>
    facts.replaceChildren(
      ...(
        [
          ['URL', webhook.url],
          ['Description', webhook.description ?? '—'],
          ['Events', webhook.events.join(', ')],
          ['Codes', webhook.qrCodeIds ? webhook.qrCodeIds.join(', ') : 'Every code'],
          ['Status', status(webhook)],
          ['Created', formatDateTime(webhook.createdAt)],
        ] as const
      ).map(([term, value]) => h('div', null, h('dt', null, term), h('dd', null, value))),
    )
  showFacts()

  const action = (text: string, run: () => Promise<void>, className = 'secondary') => {
    const button = h('button', { type: 'button', class: className }, text)
    button.addEventListener('click', async () => {
      alerts.clear()
      button.disabled = true
      try {
        await run()
      } catch (error) {
        alerts.error(error)
      } finally {
        button.disabled = false
      }
    })
    return button
  }
  const toggle = action(webhook.isActive ? 'Deactivate' : 'Activate', async () => {
    webhook = await qrctl.webhooks.update(webhook.id, { isActive: !webhook.isActive })
    toggle.textContent = webhook.isActive ? 'Deactivate' : 'Activate'
    showFacts()
    alerts.status(
      webhook.isActive ? 'The webhook is active.' : 'The webhook is inactive: it gets no deliveries.',
    )
  })
  const actions = h(
    'p',
    { class: 'actions' },
    action('Send test event', async () => {
      await qrctl.webhooks.test(webhook.id)
      alerts.status('A webhook.test event is on its way; it shows in the delivery log.')
      await load()
    }),
    action('Rotate secret', async () => {
      if (
        !(await confirmDialog(
          'Rotate the signing secret? For 24 hours deliveries carry both signatures.',
          'Rotate',
        ))
      )
        return
      const rotated = await qrctl.webhooks.rotateSecret(webhook.id)
      secret.replaceChildren(
        secretBox('New signing secret', rotated.secret, 'Copy it now: it is shown this once.'),
      )
    }),
    toggle,
    action(
      'Delete webhook',
      async () => {
        if (!(await confirmDialog(`Delete the webhook for ${webhook.url}?`, 'Delete'))) return
        await qrctl.webhooks.delete(webhook.id)
        ctx.navigate('/app/webhooks')
      },
      'danger',
    ),
  )
  main.append(
    facts,
    actions,
    secret,
    h(
      'section',
      { 'aria-labelledby': 'log-heading' },
      h('h2', { id: 'log-heading' }, 'Delivery log'),
      h(
        'p',
        { class: 'actions' },
        action('Refresh', () => load()),
      ),
      log,
    ),
  )

  async function load(): Promise<void> {
    const answer = await qrctl.webhooks.deliveries(webhook.id, {
      limit: PAGE_SIZE,
      offset: (page - 1) * PAGE_SIZE,
    })
    if (!ctx.isCurrent()) return
    const row = (delivery: WebhookDelivery) =>
      h(
        'tr',
        null,
        h('th', { scope: 'row' }, delivery.type),
        h('td', null, h('span', { class: `delivery ${delivery.status}` }, delivery.status)),
        h('td', { class: 'number' }, String(delivery.attempts)),
        h(
          'td',
          null,
          delivery.responseStatus === null ? '—' : String(delivery.responseStatus),
          delivery.responseBody
            ? h('details', null, h('summary', null, 'Body'), h('pre', null, delivery.responseBody))
            : null,
        ),
        h('td', null, formatDateTime(delivery.lastAttemptAt)),
        h('td', null, delivery.status === 'pending' ? formatDateTime(delivery.nextAttemptAt) : '—'),
        h('td', { class: 'number' }, delivery.durationMs === null ? '—' : `${delivery.durationMs} ms`),
        h(
          'td',
          null,
          h(
            'button',
            {
              type: 'button',
              class: 'secondary small',
              'aria-label': `Redeliver ${delivery.type} of ${formatDateTime(delivery.lastAttemptAt)}`,
              onclick: async () => {
                alerts.clear()
                try {
                  await qrctl.webhooks.redeliver(webhook.id, delivery.id)
                  alerts.status('Redelivered; the log shows the new attempt.')
                  await load()
                } catch (error) {
                  alerts.error(error)
                }
              },
            },
            'Redeliver',
          ),
        ),
      )
    const table = actionTable(
      'Deliveries, newest first',
      ['Event', 'Status', 'Attempts', 'Response', 'Last attempt', 'Next attempt', 'Duration'],
      answer.data.map(row),
    )
    log.replaceChildren(
      answer.total === 0
        ? h('p', { class: 'empty' }, 'No deliveries yet.')
        : tableWrap(table, 'Delivery log'),
      pager({
        page,
        pageCount: Math.max(1, Math.ceil(answer.total / PAGE_SIZE)),
        total: answer.total,
        from: answer.offset + 1,
        to: answer.offset + answer.data.length,
        noun: 'deliveries',
        go: (to) => {
          page = to
          void load().catch((error) => alerts.error(error))
        },
      }),
    )
  }
  await load()
}
