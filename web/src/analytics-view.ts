import type { Analytics } from '@qrctl/sdk'
import type { Alerts } from './api.js'
import { scansPerDay } from './chart.js'
import { check, field, formatNumber, h, plural, select } from './dom.js'
import { bars } from './widgets.js'

/** The window of an analytics call: a period or from/to, a zone, and the comparison. */
export interface WindowParams {
  period?: '7d' | '30d' | '90d' | 'all'
  from?: string
  to?: string
  timezone: string
  compare?: 'previous'
}

export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
}

function timeZones(current: string): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []
  return [...new Set(['UTC', current, ...zones])]
}

/**
 * The window controls ("Period", "From", "To", "Time zone", "Compare with the previous
 * window"), and the view of an answer: totals, "Scans per day" and the top lists as bars.
 */
export class AnalyticsView {
  readonly controls: HTMLFormElement
  readonly result: HTMLElement
  readonly #period: HTMLSelectElement
  readonly #from: HTMLInputElement
  readonly #to: HTMLInputElement
  readonly #zone: HTMLSelectElement
  readonly #compare: HTMLInputElement
  readonly #range: HTMLElement
  #destroyChart: (() => void) | undefined
  #generation = 0

  constructor(
    private readonly alerts: Alerts,
    private readonly load: (params: WindowParams) => Promise<Analytics>,
    private readonly extra: (answer: Analytics) => HTMLElement[] = () => [],
    extraControls: HTMLElement[] = [],
  ) {
    const zone = browserTimeZone()
    this.#period = select(
      { name: 'period' },
      [
        ['7d', 'Last 7 days'],
        ['30d', 'Last 30 days'],
        ['90d', 'Last 90 days'],
        ['all', 'All time'],
        ['custom', 'Dates…'],
      ],
      '30d',
    )
    this.#from = h('input', { type: 'date', name: 'from' })
    this.#to = h('input', { type: 'date', name: 'to' })
    this.#zone = select(
      { name: 'timezone' },
      timeZones(zone).map((z) => [z, z.replaceAll('_', ' ')] as const),
      zone,
    )
    const compare = check('Compare with the previous window', { name: 'compare', checked: true })
    this.#compare = compare.input
    this.#range = h('div', { class: 'grid', hidden: true }, field('From', this.#from), field('To', this.#to))
    this.controls = h(
      'form',
      {
        class: 'window-controls',
        'aria-label': 'Analytics window',
        onsubmit: (e: Event) => e.preventDefault(),
      },
      h(
        'div',
        { class: 'grid' },
        field('Period', this.#period),
        field('Time zone', this.#zone),
        extraControls,
        h('div', { class: 'field' }, compare.wrapper),
      ),
      this.#range,
    )
    this.result = h('div', { class: 'analytics', 'aria-live': 'off' })
    this.controls.addEventListener('change', () => {
      this.#range.hidden = this.#period.value !== 'custom'
      void this.refresh()
    })
  }

  params(): WindowParams {
    const params: WindowParams = { timezone: this.#zone.value }
    if (this.#period.value === 'custom') {
      if (this.#from.value) params.from = this.#from.value
      if (this.#to.value) params.to = this.#to.value
    } else params.period = this.#period.value as WindowParams['period']
    if (this.#compare.checked && params.period !== 'all') params.compare = 'previous'
    return params
  }

  async refresh(): Promise<void> {
    const generation = ++this.#generation
    const params = this.params()
    if (this.#period.value === 'custom' && (!params.from || !params.to)) return
    this.result.setAttribute('aria-busy', 'true')
    try {
      const answer = await this.load(params)
      if (generation !== this.#generation) return
      this.alerts.clear()
      this.#show(answer)
    } catch (error) {
      if (generation === this.#generation) this.alerts.error(error, this.controls)
    } finally {
      this.result.removeAttribute('aria-busy')
    }
  }

  #show(answer: Analytics): void {
    this.#destroyChart?.()
    const chart = scansPerDay(answer.eventsByDay, answer.totalEvents)
    this.#destroyChart = chart.destroy
    const previous = answer.previous
    const summary = h(
      'dl',
      { class: 'summary' },
      h('div', null, h('dt', null, 'Scans'), h('dd', null, formatNumber(answer.totalEvents))),
      h('div', null, h('dt', null, 'Unique visitors'), h('dd', null, formatNumber(answer.uniqueVisitors))),
      previous
        ? h(
            'div',
            null,
            h('dt', null, `Previous window (${previous.from} to ${previous.to})`),
            h(
              'dd',
              null,
              `${plural(previous.totalEvents, 'scan')}, ${plural(previous.uniqueVisitors, 'visitor')}`,
              h('span', { class: 'change' }, ` ${change(answer.totalEvents, previous.totalEvents)}`),
            ),
          )
        : null,
    )
    this.result.replaceChildren(
      h(
        'p',
        { class: 'hint' },
        `${answer.from ?? ''} to ${answer.to ?? ''}, days of ${answer.timezone ?? 'UTC'}`,
      ),
      summary,
      chart.element,
      ...this.extra(answer),
      h(
        'div',
        { class: 'bar-grid' },
        bars('Devices', answer.topDevices),
        bars('Countries', answer.topCountries),
        bars('Cities', answer.topCities),
        bars('Referrers', answer.topReferrers),
        bars('Browsers', answer.topBrowsers),
        bars('Operating systems', answer.topOs),
      ),
    )
  }
}

function change(now: number, before: number): string {
  if (before === 0) return now === 0 ? '(no change)' : '(up from none)'
  const percent = Math.round(((now - before) / before) * 100)
  return percent === 0 ? '(no change)' : `(${percent > 0 ? '+' : ''}${percent}%)`
}
