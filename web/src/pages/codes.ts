import type { ListQrCodesParams, QrCode } from '@qrctl/sdk'
import { check, field, formatDateTime, formatNumber, h, plural, select } from '../dom.js'
import type { PageCtx } from '../router.js'
import { pager, sortHeader, tableWrap } from '../widgets.js'

export const PAGE_SIZE = 25

type Sort = NonNullable<ListQrCodesParams['sort']>
type Mode = 'live' | 'deleted'

interface ListState {
  search: string
  tag: string
  type: string
  active: string
  sort: Sort
  page: number
}

const SORTS: readonly Sort[] = ['createdAt', '-createdAt', 'name', '-name', 'totalScans', '-totalScans']

function readState(query: URLSearchParams): ListState {
  const sort = query.get('sort') as Sort | null
  const page = Number(query.get('page') ?? '1')
  return {
    search: query.get('search') ?? '',
    tag: query.get('tag') ?? '',
    type: ['static', 'dynamic'].includes(query.get('type') ?? '') ? (query.get('type') as string) : '',
    active: ['true', 'false'].includes(query.get('active') ?? '') ? (query.get('active') as string) : '',
    sort: sort && SORTS.includes(sort) ? sort : '-createdAt',
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  }
}

function writeState(state: ListState, path: string): string {
  const query = new URLSearchParams()
  if (state.search) query.set('search', state.search)
  if (state.tag) query.set('tag', state.tag)
  if (state.type) query.set('type', state.type)
  if (state.active) query.set('active', state.active)
  if (state.sort !== '-createdAt') query.set('sort', state.sort)
  if (state.page > 1) query.set('page', String(state.page))
  const text = query.toString()
  return text ? `${path}?${text}` : path
}

function listParams(state: ListState, mode: Mode): ListQrCodesParams {
  return {
    limit: PAGE_SIZE,
    offset: (state.page - 1) * PAGE_SIZE,
    ...(mode === 'deleted' ? { deleted: true } : { sort: state.sort }),
    ...(state.search && { search: state.search }),
    ...(state.tag && { tag: [state.tag] }),
    ...(state.type && { type: state.type as 'static' | 'dynamic' }),
    ...(state.active && { isActive: state.active === 'true' }),
  } as ListQrCodesParams
}

function targetOrContent(code: QrCode): string {
  return code.type === 'dynamic' ? (code.targetUrl ?? '') : code.content
}

/** QR codes (DESIGN §19): search, filters, sortable columns, paging, and bulk actions on selected rows. */
export async function renderCodes(ctx: PageCtx): Promise<void> {
  await renderList(ctx, 'live')
}

/** The "Deleted" view: codes deleted in the last 30 days, with restore. */
export async function renderDeleted(ctx: PageCtx): Promise<void> {
  await renderList(ctx, 'deleted')
}

async function renderList(ctx: PageCtx, mode: Mode): Promise<void> {
  const { qrctl, alerts, main } = ctx
  const path = mode === 'live' ? '/app' : '/app/codes/deleted'
  const state = readState(ctx.query)
  ctx.heading(mode === 'live' ? 'QR codes' : 'Deleted QR codes')

  const views = h(
    'p',
    { class: 'actions' },
    mode === 'live'
      ? [
          h('a', { href: '/app/codes/upload', class: 'button secondary' }, 'Upload CSV'),
          h('a', { href: '/app/codes/deleted', class: 'button secondary' }, 'Deleted'),
        ]
      : [
          h('a', { href: '/app', class: 'button secondary' }, 'All QR codes'),
          h('span', { class: 'hint' }, 'Deleted codes can be restored for 30 days, then they are purged.'),
        ],
  )

  // Filters
  const search = h('input', { type: 'search', name: 'search', value: state.search, autocomplete: 'off' })
  const tagSelect = select({ name: 'tag' }, [['', 'All tags']], '')
  const typeSelect = select(
    { name: 'type' },
    [
      ['', 'Any type'],
      ['static', 'Static'],
      ['dynamic', 'Dynamic'],
    ],
    state.type,
  )
  const activeSelect = select(
    { name: 'active' },
    [
      ['', 'Any status'],
      ['true', 'Active'],
      ['false', 'Inactive'],
    ],
    state.active,
  )
  const filters = h(
    'form',
    { role: 'search', class: 'filters', onsubmit: (event: Event) => event.preventDefault() },
    field('Search', search),
    mode === 'live'
      ? [field('Tag', tagSelect), field('Type', typeSelect), field('Status', activeSelect)]
      : null,
  )

  // Bulk actions
  const selected = new Set<string>()
  const selectedCount = h('span', { class: 'selected-count', 'aria-live': 'polite' }, 'No codes selected')
  const tagInput = h('input', { type: 'text', name: 'bulkTag', autocomplete: 'off' })
  const bulkButtons: HTMLButtonElement[] = []
  const bulkButton = (text: string, run: () => Promise<void>) => {
    const button = h('button', { type: 'button', class: 'secondary', disabled: true }, text)
    button.addEventListener('click', async () => {
      alerts.clear()
      button.disabled = true
      try {
        await run()
      } catch (error) {
        alerts.error(error, bulk)
      } finally {
        updateSelection()
      }
    })
    bulkButtons.push(button)
    return button
  }
  const report = (done: number, verb: string, errors: string[]) => {
    alerts.status(`${plural(done, 'code')} ${verb}.`)
    if (errors.length > 0) alerts.message(`Not changed: ${errors.join('; ')}`)
  }
  const bulk = h(
    'section',
    { class: 'bulk', 'aria-label': 'Bulk actions' },
    selectedCount,
    mode === 'live'
      ? [
          bulkButton('Activate', async () => {
            const result = await qrctl.qrCodes.bulkUpdate({ ids: [...selected], set: { isActive: true } })
            await load()
            report(result.updated, 'activated', result.errors)
          }),
          bulkButton('Deactivate', async () => {
            const result = await qrctl.qrCodes.bulkUpdate({ ids: [...selected], set: { isActive: false } })
            await load()
            report(result.updated, 'deactivated', result.errors)
          }),
          h(
            'div',
            { class: 'inline-field', 'data-field': 'addTags' },
            field('Tag for selected', tagInput, { name: 'addTags' }),
            bulkButton('Add tag', async () => {
              const tag = tagInput.value.trim()
              if (!tag) return alerts.message('Type a tag to add first.')
              const result = await qrctl.qrCodes.bulkUpdate({ ids: [...selected], addTags: [tag] })
              await Promise.all([load(), loadTags()])
              report(result.updated, `tagged “${tag}”`, result.errors)
            }),
            bulkButton('Remove tag', async () => {
              const tag = tagInput.value.trim()
              if (!tag) return alerts.message('Type a tag to remove first.')
              const result = await qrctl.qrCodes.bulkUpdate({ ids: [...selected], removeTags: [tag] })
              await Promise.all([load(), loadTags()])
              report(result.updated, `untagged “${tag}”`, result.errors)
            }),
          ),
          bulkButton('Delete', async () => {
            const result = await qrctl.qrCodes.bulkDelete([...selected])
            await load()
            report(result.deleted, 'deleted (restorable for 30 days from Deleted)', result.errors)
          }),
        ]
      : bulkButton('Restore', async () => {
          const result = await qrctl.qrCodes.bulkRestore([...selected])
          await load()
          report(result.restored, 'restored', result.errors)
        }),
  )

  const updateSelection = () => {
    selectedCount.textContent =
      selected.size === 0 ? 'No codes selected' : `${plural(selected.size, 'code')} selected`
    for (const button of bulkButtons) button.disabled = selected.size === 0
  }

  const table = h('table', { class: 'codes' })
  const results = h('div', { class: 'results' })
  main.append(views, filters, bulk, results)

  const setState = (change: Partial<ListState>) => {
    Object.assign(state, change)
    history.replaceState(null, '', writeState(state, path))
    void load()
  }

  let loadGeneration = 0
  async function load(): Promise<void> {
    const generation = ++loadGeneration
    const params = listParams(state, mode)
    results.setAttribute('aria-busy', 'true')
    try {
      const page = await qrctl.qrCodes.list(params)
      if (generation !== loadGeneration || !ctx.isCurrent()) return
      selected.clear()
      updateSelection()
      renderTable(page.data)
      const pageCount = Math.max(1, Math.ceil(page.total / PAGE_SIZE))
      results.replaceChildren(
        page.total === 0
          ? h(
              'p',
              { class: 'empty' },
              state.search || state.tag || state.type || state.active
                ? 'No codes match these filters.'
                : mode === 'live'
                  ? 'No QR codes yet. Create one with “New QR code”, or upload a CSV.'
                  : 'No deleted codes.',
            )
          : tableWrap(table, 'QR codes'),
        pager({
          page: state.page,
          pageCount,
          total: page.total,
          from: page.total === 0 ? 0 : page.offset + 1,
          to: page.offset + page.data.length,
          noun: 'codes',
          go: (to) => setState({ page: to }),
        }),
      )
    } catch (error) {
      if (ctx.isCurrent()) alerts.error(error, filters)
    } finally {
      results.removeAttribute('aria-busy')
    }
  }

  function renderTable(codes: QrCode[]): void {
    const all = check('Select all on this page', { class: 'select-all' })
    all.input.addEventListener('change', () => {
      for (const box of table.querySelectorAll<HTMLInputElement>('tbody input[type=checkbox]')) {
        box.checked = all.input.checked
        box.dispatchEvent(new Event('change'))
      }
    })
    all.wrapper.classList.add('visually-hidden-label')
    const sortable = (label: string, key: 'name' | 'totalScans' | 'createdAt') =>
      mode === 'live'
        ? sortHeader(label, key, state.sort, (sort) => setState({ sort: sort as Sort, page: 1 }))
        : h('th', { scope: 'col' }, label)
    const head =
      mode === 'live'
        ? [
            sortable('Name', 'name'),
            h('th', { scope: 'col' }, 'Type'),
            h('th', { scope: 'col' }, 'Target or content'),
            h('th', { scope: 'col' }, 'Tags'),
            sortable('Scans', 'totalScans'),
            sortable('Created', 'createdAt'),
          ]
        : [
            h('th', { scope: 'col' }, 'Name'),
            h('th', { scope: 'col' }, 'Type'),
            h('th', { scope: 'col' }, 'Deleted'),
            h('th', { scope: 'col' }, 'Purged on'),
            h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
          ]
    const rows = codes.map((code) => {
      const box = check(`Select ${code.name}`, { value: code.id })
      box.wrapper.classList.add('visually-hidden-label')
      box.input.addEventListener('change', () => {
        if (box.input.checked) selected.add(code.id)
        else selected.delete(code.id)
        updateSelection()
      })
      const cells =
        mode === 'live'
          ? [
              h('th', { scope: 'row' }, h('a', { href: `/app/codes/${code.id}` }, code.name)),
              h(
                'td',
                null,
                code.type === 'dynamic' ? 'Dynamic' : 'Static',
                code.isActive ? null : h('span', { class: 'badge' }, 'inactive'),
              ),
              h('td', { class: 'truncate', title: targetOrContent(code) }, targetOrContent(code)),
              h(
                'td',
                null,
                code.tags.map((tag) => h('span', { class: 'tag' }, tag)),
              ),
              h('td', { class: 'number' }, formatNumber(code.totalScans)),
              h('td', null, formatDateTime(code.createdAt)),
            ]
          : [
              h('th', { scope: 'row' }, code.name),
              h('td', null, code.type === 'dynamic' ? 'Dynamic' : 'Static'),
              h('td', null, formatDateTime(code.deletedAt)),
              h('td', null, formatDateTime(code.purgeAt)),
              h(
                'td',
                null,
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'secondary',
                    'aria-label': `Restore ${code.name}`,
                    onclick: async () => {
                      alerts.clear()
                      try {
                        await qrctl.qrCodes.restore(code.id)
                        await load()
                        alerts.status(`${code.name} restored.`)
                      } catch (error) {
                        alerts.error(error)
                      }
                    },
                  },
                  'Restore',
                ),
              ),
            ]
      return h('tr', null, h('td', { class: 'select' }, box.wrapper), cells)
    })
    table.replaceChildren(
      h('caption', { class: 'visually-hidden' }, mode === 'live' ? 'QR codes' : 'Deleted QR codes'),
      h('thead', null, h('tr', null, h('td', { class: 'select' }, all.wrapper), head)),
      h('tbody', null, rows),
    )
  }

  async function loadTags(): Promise<void> {
    if (mode !== 'live') return
    try {
      const tags = await qrctl.tags.list()
      const options: [string, string][] = [
        ['', 'All tags'],
        ...tags.map((t): [string, string] => [t.name, `${t.name} (${t.count})`]),
      ]
      if (state.tag && !tags.some((t) => t.name === state.tag)) options.push([state.tag, state.tag])
      tagSelect.replaceChildren(...options.map(([value, text]) => h('option', { value }, text)))
      tagSelect.value = state.tag
    } catch (error) {
      if (ctx.isCurrent()) alerts.error(error)
    }
  }

  let searchTimer: ReturnType<typeof setTimeout> | undefined
  search.addEventListener('input', () => {
    clearTimeout(searchTimer)
    searchTimer = setTimeout(() => setState({ search: search.value.trim(), page: 1 }), 300)
  })
  search.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return
    clearTimeout(searchTimer)
    setState({ search: search.value.trim(), page: 1 })
  })
  tagSelect.addEventListener('change', () => setState({ tag: tagSelect.value, page: 1 }))
  typeSelect.addEventListener('change', () => setState({ type: typeSelect.value, page: 1 }))
  activeSelect.addEventListener('change', () => setState({ active: activeSelect.value, page: 1 }))

  await Promise.all([load(), loadTags()])
}
