import type { CreateQrCodeParams, QrCode } from '@qrctl/sdk'
import { Designer, LivePreview, type PreviewInput } from '../designer.js'
import { check, field, h, select } from '../dom.js'
import type { PageCtx } from '../router.js'
import { onSubmit } from '../widgets.js'

export const CONTENT_TYPES: readonly (readonly [QrCode['contentType'], string, string])[] = [
  ['url', 'URL', 'An http(s) address, e.g. https://example.com/menu'],
  ['text', 'Text', 'Any text'],
  ['email', 'Email', 'An email address; scanning opens a new mail'],
  ['phone', 'Phone', '+ and digits, e.g. +4930123456'],
  ['sms', 'SMS', 'number or number:message'],
  ['wifi', 'Wi-Fi', 'WIFI:T:WPA;S:network;P:password;;'],
  ['vcard', 'vCard', 'BEGIN:VCARD … END:VCARD (version 3.0 or 4.0)'],
]

/** Tags typed as `menu, spring 2027`: split on commas, empty ones dropped. */
export function parseTags(text: string): string[] {
  return text
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '')
}

/** "New QR code" (DESIGN §19): the fields of a create, the designer and the live preview. */
export async function renderNewCode(ctx: PageCtx): Promise<void> {
  const { qrctl, alerts, main } = ctx
  ctx.heading('New QR code')

  const name = h('input', { type: 'text', name: 'name', required: true, maxlength: 200, autocomplete: 'off' })
  const contentType = select(
    { name: 'contentType' },
    CONTENT_TYPES.map(([value, text]) => [value, text] as const),
    'url',
  )
  const content = h('textarea', { name: 'content', rows: 2, required: true, spellcheck: 'false' })
  const contentField = field('Content', content, { hint: CONTENT_TYPES[0]?.[2] ?? '' })
  const isStatic = check('Static', { type: 'radio', name: 'type', value: 'static' })
  const isDynamic = check('Dynamic', { type: 'radio', name: 'type', value: 'dynamic', checked: true })
  const targetUrl = h('input', { type: 'url', name: 'targetUrl', autocomplete: 'off', spellcheck: 'false' })
  const targetField = field('Target URL', targetUrl, {
    hint: 'Where scans go; you can change it at any time. Left empty, a URL code goes to its content.',
  })
  const tags = h('input', { type: 'text', name: 'tags', autocomplete: 'off' })
  const designer = new Designer(qrctl, alerts)

  const type = (): QrCode['type'] => (isStatic.input.checked ? 'static' : 'dynamic')
  const previewInput = (): PreviewInput | string => {
    if (content.value.trim() === '') return 'Type the content to see a preview.'
    const target = targetUrl.value.trim()
    return {
      contentType: contentType.value as QrCode['contentType'],
      content: content.value,
      type: type(),
      ...(type() === 'dynamic' && target && { targetUrl: target }),
    }
  }
  const preview = new LivePreview(qrctl, ctx.blobs, previewInput, designer)

  const create = h('button', { type: 'submit' }, 'Create')
  const form = h(
    'form',
    { class: 'code-form', novalidate: true },
    h(
      'div',
      { class: 'form-columns' },
      h(
        'div',
        null,
        field('Name', name, { hint: 'Your label for the code, 1–200 characters.' }),
        field('Content type', contentType),
        contentField,
        h(
          'fieldset',
          { 'data-field': 'type' },
          h('legend', null, 'Type'),
          isStatic.wrapper,
          isDynamic.wrapper,
        ),
        targetField,
        field('Tags', tags, { hint: 'Separated by commas, e.g. menu, spring 2027.' }),
        designer.element,
      ),
      preview.element,
    ),
    h('p', { class: 'actions' }, create),
  )
  main.append(form)

  const update = () => {
    targetField.hidden = type() === 'static'
    const hint = contentField.querySelector('.hint')
    const entry = CONTENT_TYPES.find(([value]) => value === contentType.value)
    if (hint && entry) hint.textContent = entry[2]
  }
  for (const control of [contentType, isStatic.input, isDynamic.input])
    control.addEventListener('change', update)
  for (const control of [content, targetUrl, contentType, isStatic.input, isDynamic.input])
    control.addEventListener('input', () => preview.schedule())
  for (const control of [contentType, isStatic.input, isDynamic.input])
    control.addEventListener('change', () => preview.schedule())
  update()
  void preview.refresh()

  onSubmit(form, create, alerts, async () => {
    const target = targetUrl.value.trim()
    const style = designer.style()
    const body: CreateQrCodeParams = {
      name: name.value.trim(),
      contentType: contentType.value as QrCode['contentType'],
      content: content.value,
      type: type(),
      ...(type() === 'dynamic' && target && { targetUrl: target }),
      ...(Object.keys(style).length > 0 && { style }),
      ...(tags.value.trim() && { tags: parseTags(tags.value) }),
    }
    alerts.status('Creating the code…')
    const code = await qrctl.qrCodes.create(body)
    ctx.navigate(`/app/codes/${code.id}`)
  })
}
