import type { QrCode, UpdateQrCodeParams, Utm } from '@qrctl/sdk'
import { AnalyticsView } from '../analytics-view.js'
import { Designer, LivePreview, type PreviewInput } from '../designer.js'
import { check, field, fileNameOf, formatDateTime, formatNumber, h } from '../dom.js'
import type { PageCtx } from '../router.js'
import { fromLocalInput, RulesEditor, toLocalInput } from '../rules-editor.js'
import { confirmDialog, onSubmit } from '../widgets.js'
import { parseTags } from './new-code.js'

const UTM_FIELDS: readonly (readonly [keyof Utm, string])[] = [
  ['source', 'UTM source'],
  ['medium', 'UTM medium'],
  ['campaign', 'UTM campaign'],
  ['term', 'UTM term'],
  ['content', 'UTM content'],
]

const FORMATS = [
  ['png', 'PNG', 'image/png'],
  ['svg', 'SVG', 'image/svg+xml'],
  ['pdf', 'PDF', 'application/pdf'],
] as const

/** A code's page (DESIGN §19): its image and downloads, the fields to edit, and its analytics. */
export async function renderCode(ctx: PageCtx): Promise<void> {
  const { qrctl, alerts, main } = ctx
  const id = ctx.params[0] ?? ''
  let code: QrCode
  try {
    code = await qrctl.qrCodes.get(id)
  } catch (error) {
    ctx.heading('QR code not found')
    main.append(h('p', null, h('a', { href: '/app' }, 'Back to the QR codes')))
    alerts.error(error)
    return
  }
  if (!ctx.isCurrent()) return
  const heading = ctx.heading(code.name)

  const image = h('img', { alt: `QR code for ${code.name}`, class: 'code-image' })
  const downloads = h('p', { class: 'downloads' })
  const facts = h('dl', { class: 'facts' })
  const imagePanel = h(
    'section',
    { class: 'image-panel', 'aria-label': 'Image and downloads' },
    image,
    downloads,
  )

  const showFacts = () => {
    const rows: [string, string | Node][] = [
      ['Type', code.type === 'dynamic' ? 'Dynamic' : 'Static'],
      ['Status', code.isActive ? 'Active' : 'Inactive'],
      ['Content', code.content],
      ...(code.shortUrl ? ([['Short link', code.shortUrl]] as [string, string][]) : []),
      ...(code.type === 'dynamic' ? ([['Target URL', code.targetUrl ?? '—']] as [string, string][]) : []),
      ['Scans', formatNumber(code.totalScans)],
      ['Tags', code.tags.length > 0 ? code.tags.join(', ') : '—'],
      ['Created', formatDateTime(code.createdAt)],
      ['Updated', formatDateTime(code.updatedAt)],
    ]
    facts.replaceChildren(
      ...rows.map(([term, value]) => h('div', null, h('dt', null, term), h('dd', null, value))),
    )
  }

  /** The images come through the SDK (they need the CSRF header) and are shown as blob: URLs. */
  const loadImages = async () => {
    const base = fileNameOf(code.name)
    const files = await Promise.all(
      FORMATS.map(async ([format, label, type]) => {
        const bytes = await qrctl.qrCodes.image(code.id, { format })
        return { format, label, url: ctx.blobs.make(bytes, type) }
      }),
    )
    if (!ctx.isCurrent()) return
    image.src = files[0]?.url ?? ''
    image.alt = `QR code for ${code.name}`
    downloads.replaceChildren(
      ...files.map((file) =>
        h(
          'a',
          { href: file.url, download: `${base}.${file.format}`, class: 'button secondary' },
          `Download ${file.label}`,
        ),
      ),
    )
  }

  main.append(h('div', { class: 'code-top' }, imagePanel, h('section', { 'aria-label': 'Details' }, facts)))
  showFacts()
  const images = loadImages().catch((error) => alerts.error(error))

  // Analytics
  const view = new AnalyticsView(alerts, (params) => qrctl.qrCodes.analytics(code.id, params))
  main.append(
    h(
      'section',
      { class: 'code-analytics', 'aria-labelledby': 'scans-heading' },
      h('h2', { id: 'scans-heading' }, 'Scans'),
      code.type === 'static'
        ? h(
            'p',
            { class: 'hint' },
            'A static code encodes its content directly, so its scans never reach qrctl.',
          )
        : null,
      view.controls,
      view.result,
    ),
  )

  // Edit
  const form = editForm(ctx, code, async (updated) => {
    code = updated
    heading.textContent = code.name
    document.title = `${code.name} · qrctl`
    showFacts()
    await loadImages()
  })
  main.append(form)

  const remove = h('button', { type: 'button', class: 'danger' }, 'Delete this code')
  remove.addEventListener('click', async () => {
    if (
      !(await confirmDialog(`Delete “${code.name}”? You can restore it from Deleted for 30 days.`, 'Delete'))
    )
      return
    try {
      await qrctl.qrCodes.delete(code.id)
      ctx.navigate('/app/codes/deleted')
    } catch (error) {
      alerts.error(error)
    }
  })
  main.append(h('section', { class: 'danger-zone', 'aria-label': 'Delete' }, remove))

  await Promise.all([images, view.refresh()])
}

function editForm(ctx: PageCtx, initial: QrCode, saved: (code: QrCode) => Promise<void>): HTMLFormElement {
  const { qrctl, alerts } = ctx
  let code = initial
  const dynamic = code.type === 'dynamic'
  const name = h('input', { type: 'text', name: 'name', value: code.name, maxlength: 200, required: true })
  const content = h('textarea', { name: 'content', rows: 2, value: code.content, spellcheck: 'false' })
  const targetUrl = h('input', {
    type: 'url',
    name: 'targetUrl',
    value: code.targetUrl ?? '',
    spellcheck: 'false',
  })
  const tags = h('input', { type: 'text', name: 'tags', value: code.tags.join(', '), autocomplete: 'off' })
  const active = check('Active', { name: 'isActive', checked: code.isActive })
  const expiresAt = h('input', {
    type: 'datetime-local',
    name: 'expiresAt',
    value: toLocalInput(code.expiresAt),
  })
  const expiredUrl = h('input', { type: 'url', name: 'expiredUrl', value: code.expiredUrl ?? '' })
  const maxScans = h('input', {
    type: 'number',
    name: 'maxScans',
    min: 1,
    step: 1,
    value: code.maxScans ?? '',
  })
  const afterLimitUrl = h('input', { type: 'url', name: 'afterLimitUrl', value: code.afterLimitUrl ?? '' })
  const password = h('input', { type: 'password', name: 'password', autocomplete: 'new-password' })
  const removePassword = check('Remove the password', { name: 'removePassword' })
  const forwardQuery = check('Forward query parameters', { name: 'forwardQuery', checked: code.forwardQuery })
  const utm = UTM_FIELDS.map(([key, label]) => ({
    key,
    label,
    input: h('input', { type: 'text', name: `utm.${key}`, value: code.utm?.[key] ?? '' }),
  }))
  let rulesTouched = false
  const rules = new RulesEditor(code.rules, () => {
    rulesTouched = true
  })
  const designer = new Designer(qrctl, alerts, code.style)
  const previewInput = (): PreviewInput | string => {
    const text = dynamic ? code.content : content.value
    if (!text) return 'Type the content to see a preview.'
    return {
      contentType: code.contentType,
      content: text,
      type: code.type,
      ...(dynamic && { targetUrl: code.targetUrl }),
    }
  }
  const preview = new LivePreview(qrctl, ctx.blobs, previewInput, designer)
  content.addEventListener('input', () => preview.schedule())

  const save = h('button', { type: 'submit' }, 'Save')
  const form = h(
    'form',
    { class: 'edit', novalidate: true, 'aria-labelledby': 'edit-heading' },
    h('h2', { id: 'edit-heading' }, 'Edit'),
    h(
      'div',
      { class: 'grid' },
      field('Name', name),
      dynamic
        ? field('Target URL', targetUrl)
        : field('Content', content, { hint: 'Changing it changes the image.' }),
      field('Tags', tags, { hint: 'Separated by commas.' }),
      h('div', { class: 'field', 'data-field': 'isActive' }, active.wrapper),
    ),
    dynamic
      ? [
          rules.element,
          h(
            'fieldset',
            null,
            h('legend', null, 'Expiry and scan limit'),
            h(
              'div',
              { class: 'grid' },
              field('Expires at', expiresAt, { hint: 'Your local time. Empty: never.' }),
              field('Expired URL', expiredUrl, {
                hint: 'Where scans go after that; empty: a page says it expired.',
              }),
              field('Scan limit', maxScans, { hint: 'Empty: no limit.' }),
              field('After-limit URL', afterLimitUrl),
            ),
          ),
          h(
            'fieldset',
            { 'data-field': 'password' },
            h('legend', null, 'Password'),
            h(
              'div',
              { class: 'grid' },
              field('Password', password, {
                hint: code.hasPassword
                  ? 'A password is set. Type a new one to change it.'
                  : 'Visitors must type it before they are sent on. 4–128 characters.',
              }),
              code.hasPassword ? h('div', { class: 'field' }, removePassword.wrapper) : null,
            ),
          ),
          h(
            'fieldset',
            { 'data-field': 'utm' },
            h('legend', null, 'UTM parameters'),
            h(
              'div',
              { class: 'grid' },
              utm.map((u) => field(u.label, u.input)),
            ),
            h('div', { class: 'field', 'data-field': 'forwardQuery' }, forwardQuery.wrapper),
          ),
        ]
      : null,
    h('div', { class: 'form-columns' }, designer.element, preview.element),
    h('p', { class: 'actions' }, save),
  )
  void preview.refresh()

  onSubmit(form, save, alerts, async () => {
    const changes = collectChanges()
    if (Object.keys(changes).length === 0) {
      alerts.status('Nothing to save: no field was changed.')
      return
    }
    alerts.status('Saving…')
    code = await qrctl.qrCodes.update(code.id, changes)
    password.value = ''
    removePassword.input.checked = false
    rulesTouched = false
    designer.isDirty = false
    await saved(code)
    alerts.status('Saved.')
  })

  /** Only what differs from the code as loaded, so a save never rewrites what it did not show. */
  function collectChanges(): UpdateQrCodeParams {
    const changes: UpdateQrCodeParams = {}
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)
    const orNull = (value: string) => (value.trim() === '' ? null : value.trim())
    if (name.value.trim() !== code.name) changes.name = name.value.trim()
    if (!dynamic && content.value !== code.content) changes.content = content.value
    if (dynamic && orNull(targetUrl.value) !== code.targetUrl) changes.targetUrl = orNull(targetUrl.value)
    const tagList = parseTags(tags.value)
    if (!same(tagList, code.tags)) changes.tags = tagList
    if (active.input.checked !== code.isActive) changes.isActive = active.input.checked
    // The design and the rules are sent only when touched: the stored style has filled-in
    // defaults and raised levels that an untouched designer would not repeat key for key.
    if (designer.isDirty) {
      const style = designer.style()
      changes.style = Object.keys(style).length === 0 ? null : style
    }
    if (!dynamic) return changes
    if (rulesTouched) {
      const ruleList = rules.value()
      changes.rules = ruleList.length === 0 ? null : ruleList
    }
    const expires = fromLocalInput(expiresAt.value) ?? null
    if (toLocalInput(expires) !== toLocalInput(code.expiresAt)) changes.expiresAt = expires
    if (orNull(expiredUrl.value) !== code.expiredUrl) changes.expiredUrl = orNull(expiredUrl.value)
    const limit = maxScans.value.trim() === '' ? null : Number(maxScans.value)
    if (limit !== code.maxScans) changes.maxScans = limit
    if (orNull(afterLimitUrl.value) !== code.afterLimitUrl)
      changes.afterLimitUrl = orNull(afterLimitUrl.value)
    if (password.value !== '') changes.password = password.value
    else if (removePassword.input.checked) changes.password = null
    const utmValue: Utm = {}
    for (const u of utm) if (u.input.value.trim()) utmValue[u.key] = u.input.value.trim()
    const utmOrNull = Object.keys(utmValue).length === 0 ? null : utmValue
    if (!same(utmOrNull, code.utm && Object.keys(code.utm).length > 0 ? code.utm : null))
      changes.utm = utmOrNull
    if (forwardQuery.input.checked !== code.forwardQuery) changes.forwardQuery = forwardQuery.input.checked
    return changes
  }
  return form
}
