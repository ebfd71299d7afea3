import { readFile } from 'node:fs/promises'
import type { CreateQrCodeParams, UpdateQrCodeParams } from '@qrctl/sdk'
import type { Command } from 'commander'
import { usageError } from './errors.js'
import { integer } from './options.js'
import { promptSecret, readStdin } from './prompt.js'
import type { Session } from './session.js'

type Rule = NonNullable<CreateQrCodeParams['rules']>[number]
type Condition = Rule['conditions'][number]
type Utm = NonNullable<CreateQrCodeParams['utm']>
type RedirectParams = Pick<
  UpdateQrCodeParams,
  'rules' | 'expiresAt' | 'expiredUrl' | 'maxScans' | 'afterLimitUrl' | 'password' | 'utm' | 'forwardQuery'
>

/** The redirect flags (DESIGN §14) as commander hands them over; `false` is a `--no-…` flag. */
export interface RedirectFlags {
  rule?: string[]
  rules?: string | false
  expiresAt?: string | false
  expiredUrl?: string | false
  maxScans?: number | false
  afterLimitUrl?: string | false
  /** `--password VALUE`, `--password` alone (true: prompt or stdin), `--no-password` (false). */
  password?: string | boolean
  utmSource?: string
  utmMedium?: string
  utmCampaign?: string
  utmTerm?: string
  utmContent?: string
  utm?: false
  forwardQuery?: boolean
}

/** The flag of each API field, for error messages (`rules.2.conditions.0.timezone` → `--rule/--rules`). */
export const REDIRECT_FLAG_NAMES = {
  rules: '--rule/--rules',
  expiresAt: '--expires-at',
  expiredUrl: '--expired-url',
  maxScans: '--max-scans',
  afterLimitUrl: '--after-limit-url',
  password: '--password',
  utm: '--utm-*',
  'utm.source': '--utm-source',
  'utm.medium': '--utm-medium',
  'utm.campaign': '--utm-campaign',
  'utm.term': '--utm-term',
  'utm.content': '--utm-content',
  forwardQuery: '--forward-query',
}

const collect = (value: string, previous: string[] = []) => [...previous, value]

/** `--rule`, `--rules`, `--expires-at` … on `create`, and with `--no-…` to clear them on `update`. */
export function addRedirectOptions(command: Command, forUpdate: boolean): Command {
  command
    .option(
      '--rule <rule>',
      'a redirect rule, "CONDITION[; CONDITION…] -> URL" (repeat it; order matters), e.g. "os=ios -> https://apps.apple.com/…"',
      collect,
    )
    .option('--rules <file>', 'redirect rules as a JSON array from a file ("-" reads stdin)')
    .option('--expires-at <time>', 'RFC 3339 instant from which scans go to --expired-url, or get a 410 page')
    .option('--expired-url <url>', 'where scans go once the code has expired')
    .option('--max-scans <n>', 'exactly this many scans reach the destination', integer(1, 1_000_000_000))
    .option('--after-limit-url <url>', 'where scans go once --max-scans are used up')
    .option(
      '--password [password]',
      'visitors must type it first (prompted, or read from stdin, when omitted)',
    )
    .option('--utm-source <value>', 'utm_source added to the destination')
    .option('--utm-medium <value>', 'utm_medium added to the destination')
    .option('--utm-campaign <value>', 'utm_campaign added to the destination')
    .option('--utm-term <value>', 'utm_term added to the destination')
    .option('--utm-content <value>', 'utm_content added to the destination')
    .option('--forward-query', 'pass the scan URL’s query parameters on to the destination')
  if (forUpdate)
    command
      .option('--no-rules', 'remove every rule')
      .option('--no-expires-at', 'never expire')
      .option('--no-expired-url', 'clear it')
      .option('--no-max-scans', 'remove the scan limit (reopens the code)')
      .option('--no-after-limit-url', 'clear it')
      .option('--no-password', 'remove the password')
      .option('--no-utm', 'remove the UTM parameters')
      .option('--no-forward-query', 'stop passing the query on')
  return command
}

const LIST_TYPES = new Set(['device', 'os', 'country', 'language'])

/** One condition of `--rule`: `os=ios`, `country=DE,AT`, `schedule=Europe/Berlin mon,fri 11:00-15:00`, `query=table=4`. */
function parseCondition(text: string, rule: string): Condition {
  const eq = text.indexOf('=')
  const type = (eq === -1 ? text : text.slice(0, eq)).trim()
  const value = eq === -1 ? '' : text.slice(eq + 1).trim()
  const bad = (why: string) =>
    usageError(
      `--rule "${rule}": ${why}`,
      'Conditions: device=, os=, country=, language=, schedule=, after=, before=, query=',
    )
  if (!value) throw bad(`"${text.trim()}" needs a value`)
  if (LIST_TYPES.has(type)) {
    const values = value.split(',').map((v) => v.trim())
    return { type, values } as Condition
  }
  if (type === 'after' || type === 'before') return { type, value }
  if (type === 'query') {
    const [key = '', ...rest] = value.split('=')
    return rest.length === 0 ? { type, key } : { type, key, value: rest.join('=') }
  }
  if (type === 'schedule') {
    const [timezone = '', ...parts] = value.split(/\s+/)
    const condition: Extract<Condition, { type: 'schedule' }> = { type, timezone }
    for (const part of parts) {
      const window = /^(\d{2}:\d{2})?-(\d{2}:\d{2})?$/.exec(part)
      if (window) {
        if (window[1]) condition.from = window[1]
        if (window[2]) condition.to = window[2]
      } else condition.days = part.split(',') as typeof condition.days
    }
    return condition
  }
  throw bad(`unknown condition "${type}"`)
}

/**
 * `--rule 'country=DE,AT; language=de -> https://example.com/de'` as the API's rule; the
 * server checks the values (a 400 names `--rule/--rules`).
 * @example parseRule('os=ios -> https://apps.apple.com/app/id1') // { targetUrl, conditions: [{ type: 'os', values: ['ios'] }] }
 */
export function parseRule(text: string): Rule {
  const arrow = text.lastIndexOf('->')
  if (arrow === -1)
    throw usageError(
      `--rule "${text}": expected "CONDITION[; CONDITION…] -> URL"`,
      'e.g. --rule "os=ios -> https://apps.apple.com/app/id1"',
    )
  const targetUrl = text.slice(arrow + 2).trim()
  const conditions = text
    .slice(0, arrow)
    .split(';')
    .filter((part) => part.trim() !== '')
    .map((part) => parseCondition(part, text))
  return { targetUrl, conditions }
}

async function rulesFrom(session: Session, flags: RedirectFlags): Promise<Rule[] | null | undefined> {
  if (flags.rules === false) return null
  const fromFlags = (flags.rule ?? []).map(parseRule)
  if (flags.rules === undefined) return fromFlags.length > 0 ? fromFlags : undefined
  const text =
    flags.rules === '-'
      ? (await readStdin(session.ui)).toString('utf8')
      : await readFile(flags.rules, 'utf8').catch(() => {
          throw usageError(`--rules: cannot read ${flags.rules}`)
        })
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw usageError(
      `--rules: ${flags.rules} is not JSON`,
      'It holds an array of { "targetUrl", "conditions" }.',
    )
  }
  if (!Array.isArray(parsed)) throw usageError('--rules: the file must hold a JSON array of rules')
  // The file's rules first, then any --rule flags; the server validates each.
  return [...(parsed as Rule[]), ...fromFlags]
}

async function passwordFrom(
  session: Session,
  flag: string | boolean | undefined,
): Promise<string | null | undefined> {
  if (flag === undefined) return undefined
  if (flag === false) return null
  if (typeof flag === 'string' && flag !== '-') return flag
  const { ui } = session
  if (flag === true && ui.stdinIsTty) return promptSecret(ui, 'Password visitors must type:')
  return (await readStdin(ui)).toString('utf8').replace(/\r?\n$/, '')
}

function utmFrom(flags: RedirectFlags): Utm | null | undefined {
  if (flags.utm === false) return null
  const utm: Utm = {
    ...(flags.utmSource === undefined ? {} : { source: flags.utmSource }),
    ...(flags.utmMedium === undefined ? {} : { medium: flags.utmMedium }),
    ...(flags.utmCampaign === undefined ? {} : { campaign: flags.utmCampaign }),
    ...(flags.utmTerm === undefined ? {} : { term: flags.utmTerm }),
    ...(flags.utmContent === undefined ? {} : { content: flags.utmContent }),
  }
  return Object.keys(utm).length === 0 ? undefined : utm
}

/**
 * The body fields the redirect flags set; `--no-…` flags send `null`. `--utm-*` on update
 * replace the code's whole `utm` (as PATCH does), so they are merged into its current value.
 */
export async function redirectParams(
  session: Session,
  flags: RedirectFlags,
  current?: () => Promise<{ utm: Utm | null }>,
): Promise<RedirectParams> {
  const rules = await rulesFrom(session, flags)
  const password = await passwordFrom(session, flags.password)
  let utm = utmFrom(flags)
  if (utm && current) utm = { ...(await current()).utm, ...utm }
  const orNull = <T>(value: T | false | undefined) => (value === false ? null : value)
  const out: RedirectParams = {
    ...(rules === undefined ? {} : { rules }),
    ...(flags.expiresAt === undefined ? {} : { expiresAt: orNull(flags.expiresAt) }),
    ...(flags.expiredUrl === undefined ? {} : { expiredUrl: orNull(flags.expiredUrl) }),
    ...(flags.maxScans === undefined ? {} : { maxScans: orNull(flags.maxScans) }),
    ...(flags.afterLimitUrl === undefined ? {} : { afterLimitUrl: orNull(flags.afterLimitUrl) }),
    ...(password === undefined ? {} : { password }),
    ...(utm === undefined ? {} : { utm }),
    ...(flags.forwardQuery === undefined ? {} : { forwardQuery: flags.forwardQuery }),
  }
  return out
}
