import type { RedirectRule, RuleCondition } from '@qrctl/sdk'
import { field, h, select } from './dom.js'

type ConditionType = RuleCondition['type']

const CONDITION_TYPES: readonly (readonly [ConditionType, string])[] = [
  ['device', 'Device'],
  ['os', 'Operating system'],
  ['country', 'Country'],
  ['language', 'Language'],
  ['schedule', 'Time of day'],
  ['after', 'After'],
  ['before', 'Before'],
  ['query', 'Query parameter'],
]

const VALUE_HINTS: Partial<Record<ConditionType, string>> = {
  device: 'mobile, tablet, desktop',
  os: 'ios, android, windows, macos, linux, chromeos',
  country: 'Country codes, e.g. DE, AT',
  language: 'Language tags, e.g. de, pt-BR',
}

/** A condition being edited: every field the condition types use, as text. */
interface Draft {
  type: ConditionType
  values: string
  timezone: string
  days: string
  from: string
  to: string
  at: string
  key: string
  value: string
}

interface RuleDraft {
  targetUrl: string
  conditions: Draft[]
}

function split(text: string): string[] {
  return text
    .split(/[,\s]+/)
    .map((v) => v.trim())
    .filter(Boolean)
}

/** An instant for `<input type="datetime-local">`, in the browser's zone. */
export function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return ''
  const date = new Date(iso)
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000)
  return local.toISOString().slice(0, 16)
}

/** The value of `<input type="datetime-local">` as an RFC 3339 instant (UTC). */
export function fromLocalInput(value: string): string | undefined {
  if (!value) return undefined
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString()
}

function toDraft(condition: RuleCondition): Draft {
  const draft: Draft = {
    type: condition.type,
    values: '',
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
    days: '',
    from: '',
    to: '',
    at: '',
    key: '',
    value: '',
  }
  switch (condition.type) {
    case 'device':
    case 'os':
    case 'country':
    case 'language':
      draft.values = condition.values.join(', ')
      break
    case 'schedule':
      draft.timezone = condition.timezone
      draft.days = condition.days?.join(', ') ?? ''
      draft.from = condition.from ?? ''
      draft.to = condition.to ?? ''
      break
    case 'after':
    case 'before':
      draft.at = toLocalInput(condition.value)
      break
    case 'query':
      draft.key = condition.key
      draft.value = condition.value ?? ''
  }
  return draft
}

function fromDraft(draft: Draft): RuleCondition {
  switch (draft.type) {
    case 'device':
    case 'os':
    case 'language':
      return { type: draft.type, values: split(draft.values) } as RuleCondition
    case 'country':
      return { type: 'country', values: split(draft.values).map((v) => v.toUpperCase()) }
    case 'schedule':
      return {
        type: 'schedule',
        timezone: draft.timezone.trim(),
        ...(draft.days.trim() && { days: split(draft.days.toLowerCase()) as never }),
        ...(draft.from && { from: draft.from }),
        ...(draft.to && { to: draft.to }),
      }
    case 'after':
    case 'before':
      return { type: draft.type, value: fromLocalInput(draft.at) ?? draft.at }
    case 'query':
      return { type: 'query', key: draft.key, ...(draft.value !== '' && { value: draft.value }) }
  }
}

function emptyDraft(): Draft {
  return toDraft({ type: 'device', values: [] } as unknown as RuleCondition)
}

/**
 * Redirect rules (DESIGN §14): an ordered list of rules, each a target URL and 1–5
 * conditions. Every control is named with its rule and condition ("Rule 1 target URL"), and
 * carries `data-field="rules.0.conditions.1.values"` for the API's issues.
 */
export class RulesEditor {
  readonly element: HTMLFieldSetElement
  #rules: RuleDraft[]
  readonly #list: HTMLDivElement
  readonly #onChange: () => void

  constructor(rules: readonly RedirectRule[] | null, onChange: () => void = () => {}) {
    this.#rules = (rules ?? []).map((rule) => ({
      targetUrl: rule.targetUrl,
      conditions: rule.conditions.map(toDraft),
    }))
    this.#onChange = onChange
    this.#list = h('div', { class: 'rules' })
    const add = h('button', { type: 'button', class: 'secondary' }, 'Add rule')
    add.addEventListener('click', () => {
      this.#rules.push({ targetUrl: '', conditions: [emptyDraft()] })
      this.#render()
      this.#focus(`rule-${this.#rules.length - 1}-target`)
      this.#onChange()
    })
    this.element = h(
      'fieldset',
      { class: 'rules-editor', 'data-field': 'rules' },
      h('legend', null, 'Redirect rules'),
      h(
        'p',
        { class: 'hint' },
        'The first rule whose conditions all hold sends the scan to its URL; otherwise it goes to the target URL.',
      ),
      this.#list,
      add,
    )
    this.#render()
  }

  /** The rules as the API takes them (`[]` clears them). */
  value(): RedirectRule[] {
    return this.#rules.map((rule) => ({
      targetUrl: rule.targetUrl.trim(),
      conditions: rule.conditions.map(fromDraft),
    }))
  }

  #focus(id: string): void {
    this.element.querySelector<HTMLElement>(`[data-id="${id}"]`)?.focus()
  }

  #render(): void {
    this.#list.replaceChildren(
      ...(this.#rules.length === 0
        ? [h('p', { class: 'hint' }, 'No rules: every scan goes to the target URL.')]
        : []),
      ...this.#rules.map((rule, r) => this.#renderRule(rule, r)),
    )
  }

  #renderRule(rule: RuleDraft, r: number): HTMLElement {
    const n = r + 1
    const target = h('input', {
      type: 'url',
      value: rule.targetUrl,
      'aria-label': `Rule ${n} target URL`,
      'data-id': `rule-${r}-target`,
      spellcheck: 'false',
    })
    target.addEventListener('input', () => {
      rule.targetUrl = target.value
      this.#onChange()
    })
    const button = (text: string, label: string, run: () => void, disabled = false) =>
      h(
        'button',
        { type: 'button', class: 'secondary small', 'aria-label': label, disabled, onclick: run },
        text,
      )
    const restructure = (change: () => void, focus?: string) => () => {
      change()
      this.#render()
      if (focus) this.#focus(focus)
      this.#onChange()
    }
    return h(
      'fieldset',
      { class: 'rule', 'data-field': `rules.${r}` },
      h('legend', null, `Rule ${n}`),
      field('Target URL', target, { name: `rules.${r}.targetUrl` }),
      h(
        'div',
        { class: 'conditions', 'data-field': `rules.${r}.conditions` },
        rule.conditions.map((condition, c) => this.#renderCondition(rule, r, condition, c)),
      ),
      h(
        'p',
        { class: 'actions' },
        button(
          'Add condition',
          `Add a condition to rule ${n}`,
          restructure(
            () => rule.conditions.push(emptyDraft()),
            `rule-${r}-cond-${rule.conditions.length}-type`,
          ),
          rule.conditions.length >= 5,
        ),
        button(
          'Move up',
          `Move rule ${n} up`,
          restructure(() => {
            const [moved] = this.#rules.splice(r, 1)
            if (moved) this.#rules.splice(r - 1, 0, moved)
          }),
          r === 0,
        ),
        button(
          'Remove rule',
          `Remove rule ${n}`,
          restructure(() => this.#rules.splice(r, 1)),
        ),
      ),
    )
  }

  #renderCondition(rule: RuleDraft, r: number, draft: Draft, c: number): HTMLElement {
    const name = `Rule ${r + 1} condition ${c + 1}`
    const path = `rules.${r}.conditions.${c}`
    const type = select(
      { 'aria-label': `${name} type`, 'data-id': `rule-${r}-cond-${c}-type` },
      CONDITION_TYPES,
      draft.type,
    )
    const text = (key: keyof Draft, label: string, attrs: Record<string, string> = {}) => {
      const input = h('input', {
        type: 'text',
        value: draft[key],
        'aria-label': `${name} ${label.toLowerCase()}`,
        ...attrs,
      })
      input.addEventListener('input', () => {
        draft[key] = input.value as never
        this.#onChange()
      })
      return input
    }
    const fields: HTMLElement[] = []
    switch (draft.type) {
      case 'device':
      case 'os':
      case 'country':
      case 'language':
        fields.push(
          field('Values', text('values', 'Values'), {
            name: `${path}.values`,
            hint: VALUE_HINTS[draft.type] ?? '',
          }),
        )
        break
      case 'schedule':
        fields.push(
          field('Time zone', text('timezone', 'Time zone'), { name: `${path}.timezone` }),
          field('Days', text('days', 'Days'), {
            name: `${path}.days`,
            hint: 'mon, tue … sun; empty for every day',
          }),
          field('From', text('from', 'From', { type: 'time' }), { name: `${path}.from` }),
          field('To', text('to', 'To', { type: 'time' }), { name: `${path}.to` }),
        )
        break
      case 'after':
      case 'before':
        fields.push(
          field('Date and time', text('at', 'Date and time', { type: 'datetime-local' }), {
            name: `${path}.value`,
          }),
        )
        break
      case 'query':
        fields.push(
          field('Parameter', text('key', 'Parameter'), { name: `${path}.key` }),
          field('Value', text('value', 'Value'), { name: `${path}.value`, hint: 'Empty: any value' }),
        )
    }
    type.addEventListener('change', () => {
      draft.type = type.value as ConditionType
      this.#render()
      this.#focus(`rule-${r}-cond-${c}-type`)
      this.#onChange()
    })
    const remove = h(
      'button',
      {
        type: 'button',
        class: 'secondary small',
        'aria-label': `Remove condition ${c + 1} of rule ${r + 1}`,
        disabled: rule.conditions.length <= 1,
      },
      'Remove condition',
    )
    remove.addEventListener('click', () => {
      rule.conditions.splice(c, 1)
      this.#render()
      this.#focus(`rule-${r}-cond-0-type`)
      this.#onChange()
    })
    return h(
      'fieldset',
      { class: 'condition', 'data-field': path },
      h('legend', null, `Condition ${c + 1}`),
      h('div', { class: 'grid' }, field('Type', type, { name: `${path}.type` }), fields),
      remove,
    )
  }
}
