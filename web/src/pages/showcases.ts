import { TEMPLATES } from '@qrctl/contract'
import type { Showcase } from '@qrctl/sdk'
import { field, formatDateTime, formatNumber, h, select } from '../dom.js'
import type { PageCtx } from '../router.js'
import { actionTable, confirmDialog, onSubmit, pager, tableWrap } from '../widgets.js'

const PAGE_SIZE = 25

/** Showcases (DESIGN §9, §19): the landing pages, their counts, and a form for a new one. */
export async function renderShowcases(ctx: PageCtx): Promise<void> {
  const { qrctl, alerts, main } = ctx
  ctx.heading('Showcases')
  let page = 1

  const codeSelect = select({ name: 'qrCodeId', required: true }, [['', 'Choose a code…']], '')
  const title = h('input', { type: 'text', name: 'title', required: true, maxlength: 100 })
  const description = h('textarea', { name: 'description', rows: 2 })
  const template = select(
    { name: 'template' },
    TEMPLATES.map((t) => [t, t[0]?.toUpperCase() + t.slice(1)] as const),
    'minimal',
  )
  const create = h('button', { type: 'submit' }, 'Create showcase')
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'new-showcase', novalidate: true },
    h('h2', { id: 'new-showcase' }, 'New showcase'),
    h(
      'div',
      { class: 'grid' },
      field('QR code', codeSelect, { hint: 'The 100 newest codes.' }),
      field('Title', title),
      field('Template', template),
    ),
    field('Description', description),
    h('p', { class: 'actions' }, create),
  )
  const list = h(
    'section',
    { 'aria-labelledby': 'showcase-list' },
    h('h2', { id: 'showcase-list' }, 'Your showcases'),
  )
  const results = h('div')
  list.append(results)
  main.append(list, form)

  onSubmit(form, create, alerts, async () => {
    const showcase = await qrctl.showcases.create({
      qrCodeId: codeSelect.value,
      title: title.value.trim(),
      template: template.value as Showcase['template'],
      ...(description.value.trim() && { description: description.value.trim() }),
    })
    alerts.status(`Showcase “${showcase.title}” created at ${showcase.url}.`)
    form.reset()
    page = 1
    await load()
  })

  async function load(): Promise<void> {
    const answer = await qrctl.showcases.list({ limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE })
    if (!ctx.isCurrent()) return
    const rows = answer.data.map((showcase) =>
      h(
        'tr',
        null,
        h(
          'th',
          { scope: 'row' },
          h('a', { href: showcase.url, target: '_blank', rel: 'noopener' }, showcase.title),
        ),
        h('td', null, showcase.slug),
        h('td', null, showcase.template),
        h('td', null, showcase.isActive ? 'Active' : 'Inactive'),
        h('td', { class: 'number' }, formatNumber(showcase.viewCount)),
        h('td', { class: 'number' }, formatNumber(showcase.downloadCount)),
        h('td', null, formatDateTime(showcase.createdAt)),
        h(
          'td',
          { class: 'row-actions' },
          h(
            'button',
            {
              type: 'button',
              class: 'secondary small',
              'aria-label': `${showcase.isActive ? 'Deactivate' : 'Activate'} ${showcase.title}`,
              onclick: () => act(() => qrctl.showcases.update(showcase.id, { isActive: !showcase.isActive })),
            },
            showcase.isActive ? 'Deactivate' : 'Activate',
          ),
          h(
            'button',
            {
              type: 'button',
              class: 'danger small',
              'aria-label': `Delete ${showcase.title}`,
              onclick: async () => {
                if (
                  await confirmDialog(
                    `Delete the showcase “${showcase.title}”? Its page goes away.`,
                    'Delete',
                  )
                )
                  await act(() => qrctl.showcases.delete(showcase.id))
              },
            },
            'Delete',
          ),
        ),
      ),
    )
    const table = actionTable(
      'Showcases',
      ['Title', 'Slug', 'Template', 'Status', 'Views', 'Downloads', 'Created'],
      rows,
    )
    const pageCount = Math.max(1, Math.ceil(answer.total / PAGE_SIZE))
    results.replaceChildren(
      answer.total === 0
        ? h(
            'p',
            { class: 'empty' },
            'No showcases yet: a showcase is a public landing page for one of your codes.',
          )
        : tableWrap(table, 'Showcases'),
      pager({
        page,
        pageCount,
        total: answer.total,
        from: answer.offset + 1,
        to: answer.offset + answer.data.length,
        noun: 'showcases',
        go: (to) => {
          page = to
          void load().catch((error) => alerts.error(error))
        },
      }),
    )
  }

  async function act(run: () => Promise<unknown>): Promise<void> {
    alerts.clear()
    try {
      await run()
      await load()
    } catch (error) {
      alerts.error(error)
    }
  }

  const [codes] = await Promise.all([qrctl.qrCodes.list({ limit: 100 }), load()])
  codeSelect.append(...codes.data.map((code) => h('option', { value: code.id }, code.name)))
}
