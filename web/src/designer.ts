import type { QrCode, Qrctl } from '@qrctl/sdk'
import { type Alerts, type BlobUrls, isSessionOver } from './api.js'
import { check, field, h, select, uid } from './dom.js'

/** The style of a code as the API takes it (contract-typed through the SDK). */
export type Style = NonNullable<QrCode['style']>

const SHAPES = [
  ['square', 'Square'],
  ['rounded', 'Rounded'],
  ['dot', 'Dot'],
] as const
const FINDER_SHAPES = [
  ['square', 'Square'],
  ['rounded', 'Rounded'],
  ['circle', 'Circle'],
] as const

function color(name: string, value: string): HTMLInputElement {
  return h('input', { type: 'color', name, value })
}

function readAsBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read'))
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''))
    reader.readAsDataURL(file)
  })
}

/** What the preview draws: the symbol fields of a create body. */
export interface PreviewInput {
  contentType: QrCode['contentType']
  content: string
  type: QrCode['type']
  targetUrl?: string | null
}

/**
 * The designer (DESIGN §13, §19): shapes, colours, gradient, logo upload and frame, as one
 * fieldset whose controls carry `data-field="style.…"` so the API's issues land beside them.
 */
export class Designer {
  readonly element: HTMLFieldSetElement
  /** Whether the person changed anything since it was filled in (or last saved). */
  isDirty = false
  #logoAssetId: string | undefined
  readonly #listeners: (() => void)[] = []
  readonly #controls: Record<string, HTMLInputElement | HTMLSelectElement> = {}
  readonly #logoName: HTMLParagraphElement
  readonly #removeLogo: HTMLButtonElement
  readonly #gradientFields: HTMLElement
  readonly #frameFields: HTMLElement
  readonly #finderColorField: HTMLElement

  constructor(
    private readonly qrctl: Qrctl,
    private readonly alerts: Alerts,
    initial: Style | null = null,
  ) {
    const s = initial ?? {}
    const c = this.#controls
    c.moduleShape = select({ name: 'moduleShape' }, SHAPES, s.moduleShape ?? 'square')
    c.finderShape = select({ name: 'finderShape' }, FINDER_SHAPES, s.finderShape ?? 'square')
    c.finderDotShape = select({ name: 'finderDotShape' }, FINDER_SHAPES, s.finderDotShape ?? 'square')
    c.foregroundColor = color('foregroundColor', (s.foregroundColor ?? '#000000').toLowerCase())
    c.backgroundColor = color('backgroundColor', (s.backgroundColor ?? '#ffffff').toLowerCase())
    const ownFinder = check('Colour the finder patterns separately', { checked: Boolean(s.finderColor) })
    c.ownFinderColor = ownFinder.input
    c.finderColor = color('finderColor', (s.finderColor ?? '#000000').toLowerCase())
    c.gradient = select(
      { name: 'gradient' },
      [
        ['', 'None'],
        ['linear', 'Linear'],
        ['radial', 'Radial'],
      ],
      s.gradient?.type ?? '',
    )
    c.gradientStart = color('gradientStart', (s.gradient?.colors[0] ?? '#1a56c4').toLowerCase())
    c.gradientEnd = color('gradientEnd', (s.gradient?.colors[1] ?? '#7a1fa2').toLowerCase())
    c.gradientRotation = h('input', {
      type: 'number',
      name: 'rotation',
      min: 0,
      max: 360,
      step: 1,
      value: String(s.gradient?.rotation ?? 0),
    })
    c.errorCorrectionLevel = select(
      { name: 'errorCorrectionLevel' },
      [
        ['L', 'L (7%)'],
        ['M', 'M (15%)'],
        ['Q', 'Q (25%)'],
        ['H', 'H (30%)'],
      ],
      s.errorCorrectionLevel ?? 'M',
    )
    c.margin = h('input', {
      type: 'number',
      name: 'margin',
      min: 0,
      max: 16,
      step: 1,
      value: String(s.margin ?? 4),
    })
    c.logoFile = h('input', {
      type: 'file',
      name: 'logo',
      accept: 'image/png,image/jpeg,image/webp,image/svg+xml',
    })
    c.logoSize = h('input', {
      type: 'number',
      name: 'logoSize',
      min: 10,
      max: 30,
      step: 1,
      value: String(Math.round((s.logo?.size ?? 0.2) * 100)),
    })
    c.frame = select(
      { name: 'frame' },
      [
        ['', 'None'],
        ['banner', 'Banner'],
        ['box', 'Box'],
      ],
      s.frame?.style ?? '',
    )
    c.frameText = h('input', {
      type: 'text',
      name: 'frameText',
      maxlength: 30,
      value: s.frame?.text ?? 'Scan me',
    })
    c.framePosition = select(
      { name: 'framePosition' },
      [
        ['bottom', 'Bottom'],
        ['top', 'Top'],
      ],
      s.frame?.position ?? 'bottom',
    )
    c.frameColor = color('frameColor', (s.frame?.color ?? s.foregroundColor ?? '#000000').toLowerCase())
    c.frameTextColor = color(
      'frameTextColor',
      (s.frame?.textColor ?? s.backgroundColor ?? '#ffffff').toLowerCase(),
    )

    this.#logoAssetId = s.logo?.assetId
    this.#logoName = h(
      'p',
      { class: 'hint', role: 'status' },
      this.#logoAssetId ? 'A logo is set.' : 'No logo.',
    )
    this.#removeLogo = h(
      'button',
      { type: 'button', class: 'secondary', hidden: !this.#logoAssetId },
      'Remove logo',
    )
    this.#removeLogo.addEventListener('click', () => {
      this.#logoAssetId = undefined
      ;(c.logoFile as HTMLInputElement).value = ''
      this.#logoName.textContent = 'No logo.'
      this.#removeLogo.hidden = true
      this.#changed()
    })
    c.logoFile.addEventListener('change', () => void this.#upload())

    this.#finderColorField = field('Finder colour', c.finderColor, { name: 'style.finderColor' })
    this.#gradientFields = h(
      'div',
      { class: 'grid' },
      field('Gradient start', c.gradientStart, { name: 'style.gradient.colors.0' }),
      field('Gradient end', c.gradientEnd, { name: 'style.gradient.colors.1' }),
      field('Gradient rotation (degrees)', c.gradientRotation, { name: 'style.gradient.rotation' }),
    )
    this.#frameFields = h(
      'div',
      { class: 'grid' },
      field('Frame text', c.frameText, { name: 'style.frame.text' }),
      field('Frame position', c.framePosition, { name: 'style.frame.position' }),
      field('Frame colour', c.frameColor, { name: 'style.frame.color' }),
      field('Frame text colour', c.frameTextColor, { name: 'style.frame.textColor' }),
    )

    this.element = h(
      'fieldset',
      { class: 'designer' },
      h('legend', null, 'Design'),
      h(
        'div',
        { class: 'grid' },
        field('Module shape', c.moduleShape, { name: 'style.moduleShape' }),
        field('Finder shape', c.finderShape, { name: 'style.finderShape' }),
        field('Finder centre shape', c.finderDotShape, { name: 'style.finderDotShape' }),
        field('Foreground colour', c.foregroundColor, { name: 'style.foregroundColor' }),
        field('Background colour', c.backgroundColor, { name: 'style.backgroundColor' }),
        h('div', { class: 'field' }, ownFinder.wrapper),
        this.#finderColorField,
      ),
      h('div', { class: 'grid' }, field('Gradient', c.gradient, { name: 'style.gradient' })),
      this.#gradientFields,
      h(
        'div',
        { class: 'grid' },
        field('Error correction', c.errorCorrectionLevel, {
          name: 'style.errorCorrectionLevel',
          hint: 'A logo raises it to Q or H.',
        }),
        field('Margin (modules)', c.margin, { name: 'style.margin' }),
      ),
      h(
        'div',
        { class: 'grid logo' },
        field('Logo', c.logoFile, { name: 'style.logo', hint: 'PNG, JPEG, WebP or SVG, up to 512 KiB.' }),
        h('div', { class: 'field' }, this.#logoName, this.#removeLogo),
        field('Logo size (% of the width)', c.logoSize, { name: 'style.logo.size' }),
      ),
      h('div', { class: 'grid' }, field('Frame', c.frame, { name: 'style.frame' })),
      this.#frameFields,
    )
    this.element.addEventListener('input', (event) => {
      if (event.target !== c.logoFile) this.#changed()
    })
    this.element.addEventListener('change', (event) => {
      if (event.target !== c.logoFile) this.#changed()
    })
    this.#showDependent()
  }

  /** Called after every change of the design. */
  onChange(listener: () => void): void {
    this.#listeners.push(listener)
  }

  #changed(): void {
    this.isDirty = true
    this.#showDependent()
    for (const listener of this.#listeners) listener()
  }

  #showDependent(): void {
    const c = this.#controls
    this.#finderColorField.hidden = !(c.ownFinderColor as HTMLInputElement).checked
    this.#gradientFields.hidden = c.gradient?.value === ''
    this.#frameFields.hidden = c.frame?.value === ''
  }

  async #upload(): Promise<void> {
    const input = this.#controls.logoFile as HTMLInputElement
    const file = input.files?.[0]
    if (!file) return
    this.#logoName.textContent = `Uploading ${file.name}…`
    try {
      const contentType = file.type as 'image/png' | 'image/jpeg' | 'image/webp' | 'image/svg+xml'
      const asset = await this.qrctl.assets.create({
        name: file.name.slice(0, 200),
        contentType,
        data: await readAsBase64(file),
      })
      this.#logoAssetId = asset.id
      this.#logoName.textContent = `Logo: ${file.name} (${asset.width}×${asset.height} px)`
      this.#removeLogo.hidden = false
      this.#changed()
    } catch (error) {
      this.#logoName.textContent = 'The logo was not uploaded.'
      input.value = ''
      this.alerts.error(error, this.element)
    }
  }

  /** The style the controls describe; default values are left out. */
  style(): Style {
    const c = this.#controls
    const value = (name: string) => c[name]?.value ?? ''
    const style: Style = {}
    if (value('moduleShape') !== 'square') style.moduleShape = value('moduleShape') as Style['moduleShape']
    if (value('finderShape') !== 'square') style.finderShape = value('finderShape') as Style['finderShape']
    if (value('finderDotShape') !== 'square')
      style.finderDotShape = value('finderDotShape') as Style['finderDotShape']
    if (value('foregroundColor') !== '#000000') style.foregroundColor = value('foregroundColor')
    if (value('backgroundColor') !== '#ffffff') style.backgroundColor = value('backgroundColor')
    if ((c.ownFinderColor as HTMLInputElement).checked) style.finderColor = value('finderColor')
    if (value('gradient')) {
      style.gradient = {
        type: value('gradient') as 'linear' | 'radial',
        colors: [value('gradientStart'), value('gradientEnd')],
        ...(value('gradient') === 'linear' && { rotation: Number(value('gradientRotation')) }),
      }
    }
    if (value('errorCorrectionLevel') !== 'M')
      style.errorCorrectionLevel = value('errorCorrectionLevel') as Style['errorCorrectionLevel']
    if (value('margin') !== '4') style.margin = Number(value('margin'))
    if (this.#logoAssetId) style.logo = { assetId: this.#logoAssetId, size: Number(value('logoSize')) / 100 }
    if (value('frame')) {
      style.frame = {
        style: value('frame') as 'box' | 'banner',
        text: value('frameText'),
        position: value('framePosition') as 'bottom' | 'top',
        color: value('frameColor'),
        textColor: value('frameTextColor'),
      }
    }
    return style
  }
}

/**
 * The live preview: the server's own render of the unsaved design (`qrCodes.preview`),
 * redrawn a moment after each change. A design that would not scan says why, beside it.
 */
export class LivePreview {
  readonly element: HTMLElement
  readonly #image: HTMLImageElement
  readonly #note: HTMLParagraphElement
  #timer: ReturnType<typeof setTimeout> | undefined
  #generation = 0
  #url: string | undefined

  constructor(
    private readonly qrctl: Qrctl,
    private readonly blobs: BlobUrls,
    private readonly input: () => PreviewInput | string,
    private readonly designer: Designer,
  ) {
    this.#image = h('img', { alt: 'Live preview of the QR code', width: 240, height: 240, hidden: true })
    this.#note = h('p', { class: 'hint', role: 'status', id: uid('preview') })
    this.element = h(
      'section',
      { class: 'preview', 'aria-label': 'Live preview' },
      h('h2', null, 'Live preview'),
      this.#image,
      this.#note,
    )
    designer.onChange(() => this.schedule())
  }

  /** Redraws shortly, after the person stops typing. */
  schedule(): void {
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => void this.refresh(), 350)
  }

  async refresh(): Promise<void> {
    const generation = ++this.#generation
    const input = this.input()
    if (typeof input === 'string') {
      this.#note.textContent = input
      return
    }
    this.#note.textContent = 'Drawing the preview…'
    try {
      const bytes = await this.qrctl.qrCodes.preview({
        format: 'png',
        size: 320,
        ...input,
        style: this.designer.style(),
      })
      if (generation !== this.#generation) return
      this.blobs.revoke(this.#url)
      this.#url = this.blobs.make(bytes, 'image/png')
      this.#image.src = this.#url
      this.#image.hidden = false
      this.#image.removeAttribute('width')
      this.#image.removeAttribute('height')
      this.#note.textContent = 'This is how the code will look; the server checked that it scans.'
    } catch (error) {
      if (generation !== this.#generation) return
      if (isSessionOver(error)) location.assign('/app/login')
      this.#note.textContent = `No preview: ${describe(error)}`
    }
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const issues = (error as { issues?: { path: string; message: string }[] }).issues
  if (issues && issues.length > 0)
    return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')
  return error.message
}
