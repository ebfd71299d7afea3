import { z } from 'zod'
import type { Issue } from '../errors.js'
import { httpUrl, isTimeZone, strictObject } from './common.js'

/** Device classes a `device` condition names (a scan's `other`, e.g. a TV, matches none). */
export const RULE_DEVICES = ['mobile', 'tablet', 'desktop'] as const
export type RuleDevice = (typeof RULE_DEVICES)[number]

/** Operating systems an `os` condition names. */
export const RULE_OSES = ['ios', 'android', 'windows', 'macos', 'linux', 'chromeos'] as const
export type RuleOs = (typeof RULE_OSES)[number]

/** Local weekdays of a `schedule` condition. */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const
export type Weekday = (typeof WEEKDAYS)[number]

/** The assigned ISO 3166-1 alpha-2 codes (249). */
export const COUNTRY_CODES: ReadonlySet<string> = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
    'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
    'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
    'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
    'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
)

const values = <T extends z.ZodTypeAny>(item: T, max: number) =>
  z
    .array(item)
    .min(1, 'Needs at least one value')
    .max(max, `At most ${max} values`)
    .describe('The condition holds when any value matches')

const YEAR_10000 = Date.UTC(10_000, 0, 1)
const Rfc3339 = z
  .string()
  .datetime({ offset: true, message: 'Must be an RFC 3339 date-time, e.g. 2026-12-24T18:00:00+01:00' })
  .refine((value) => {
    const time = Date.parse(value)
    return Number.isNaN(time) || (time >= 0 && time < YEAR_10000)
  }, 'Must be between 1970 and 9999 (UTC)')

const HHMM = /^(?:[01]\d|2[0-3]):[0-5]\d$/

export const DeviceCondition = strictObject({
  type: z.literal('device'),
  values: values(z.enum(RULE_DEVICES), RULE_DEVICES.length),
}).describe("The scanner's device class")

export const OsCondition = strictObject({
  type: z.literal('os'),
  values: values(z.enum(RULE_OSES), RULE_OSES.length),
}).describe("The scanner's operating system")

export const CountryCondition = strictObject({
  type: z.literal('country'),
  values: values(
    z
      .string()
      .refine((c) => COUNTRY_CODES.has(c), 'Must be an assigned ISO 3166-1 alpha-2 code in upper case'),
    250,
  ),
}).describe("The visitor's country (GeoIP), ISO 3166-1 alpha-2")

export const LanguageCondition = strictObject({
  type: z.literal('language'),
  values: values(
    z
      .string()
      .max(35, 'Must be at most 35 characters')
      .regex(/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/, 'Must be a language tag such as de or pt-BR'),
    50,
  ),
}).describe(
  "The visitor's most preferred Accept-Language entry: `de` matches de and de-AT, `pt-BR` only pt-BR (case-insensitive)",
)

export const ScheduleCondition = strictObject({
  type: z.literal('schedule'),
  timezone: z.string().refine(isTimeZone, 'Must be an IANA time zone such as Europe/Berlin'),
  days: z
    .array(z.enum(WEEKDAYS))
    .min(1, 'Needs at least one day')
    .max(7, 'At most 7 days')
    .optional()
    .describe('Local weekdays on which the window starts (default every day)'),
  from: z.string().regex(HHMM, 'Must be HH:MM, 00:00–23:59').optional().describe('Inclusive, default 00:00'),
  to: z
    .string()
    .refine((v) => HHMM.test(v) || v === '24:00', 'Must be HH:MM, 00:00–24:00')
    .optional()
    .describe('Exclusive, default 24:00; before `from` the window spans midnight'),
}).describe('Local time of the scan in the IANA zone `timezone`, daylight saving included')

export const AfterCondition = strictObject({
  type: z.literal('after'),
  value: Rfc3339,
}).describe('The scan is at or after this instant')

export const BeforeCondition = strictObject({
  type: z.literal('before'),
  value: Rfc3339,
}).describe('The scan is before this instant')

export const QueryCondition = strictObject({
  type: z.literal('query'),
  key: z.string().min(1, 'Must not be empty').max(255, 'Must be at most 255 characters'),
  value: z.string().max(1024, 'Must be at most 1024 characters').optional(),
}).describe('The scan URL has this query parameter (exact, case-sensitive), with this value when given')

export const RuleCondition = z.discriminatedUnion('type', [
  DeviceCondition,
  OsCondition,
  CountryCondition,
  LanguageCondition,
  ScheduleCondition,
  AfterCondition,
  BeforeCondition,
  QueryCondition,
])
export type RuleCondition = z.infer<typeof RuleCondition>
export type RuleConditionType = RuleCondition['type']

export const MAX_RULES = 20
export const MAX_CONDITIONS = 5

/** One redirect rule: when every condition holds, scans go to its `targetUrl`. */
export const RedirectRule = strictObject({
  targetUrl: httpUrl(2048).describe('Where scans go when every condition holds'),
  conditions: z
    .array(RuleCondition)
    .min(1, 'A rule needs at least 1 condition')
    .max(MAX_CONDITIONS, `A rule has at most ${MAX_CONDITIONS} conditions`)
    .describe('1–5 conditions, all must hold'),
})
export type RedirectRule = z.infer<typeof RedirectRule>

export const RedirectRules = z
  .array(RedirectRule)
  .max(MAX_RULES, `At most ${MAX_RULES} rules`)
  .describe('Ordered rules; the first that holds gives the destination, else targetUrl. [] clears them')

const utmValue = z.string().min(1, 'Must not be empty').max(255, 'Must be at most 255 characters').optional()

/** UTM parameters added to the code's own destinations, unless the destination has them already. */
export const Utm = strictObject({
  source: utmValue.describe('utm_source'),
  medium: utmValue.describe('utm_medium'),
  campaign: utmValue.describe('utm_campaign'),
  term: utmValue.describe('utm_term'),
  content: utmValue.describe('utm_content'),
})
export type Utm = z.infer<typeof Utm>
export const UTM_KEYS = ['source', 'medium', 'campaign', 'term', 'content'] as const

export const MAX_SCANS_LIMIT = 1_000_000_000

/** The fields of DESIGN §14 on create, batch and PATCH: each nullable, `null` clears it. */
export const redirectFieldsShape = {
  rules: RedirectRules.nullable().optional(),
  expiresAt: Rfc3339.nullable()
    .optional()
    .describe('From this instant on scans go to expiredUrl, or get a 410 page; null clears it'),
  expiredUrl: httpUrl(2048).nullable().optional().describe('Where scans go once the code has expired'),
  maxScans: z
    .number()
    .int('Must be a whole number')
    .min(1, 'Must be at least 1')
    .max(MAX_SCANS_LIMIT, `Must be at most ${MAX_SCANS_LIMIT}`)
    .nullable()
    .optional()
    .describe(
      'Exactly this many scans reach the code’s destinations; later ones go to afterLimitUrl or get a 410 page',
    ),
  afterLimitUrl: httpUrl(2048).nullable().optional().describe('Where scans go once maxScans is used up'),
  password: z
    .string()
    .min(4, 'Must be at least 4 characters')
    .max(128, 'Must be at most 128 characters')
    .nullable()
    .optional()
    .describe('Write-only: visitors must type it on a page before they are sent on; null removes it'),
  utm: Utm.nullable().optional(),
  forwardQuery: z
    .boolean()
    .nullable()
    .optional()
    .describe('true adds the scan URL’s query parameters to the destination (its own parameters win)'),
}
export type RedirectFieldsInput = {
  [K in keyof typeof redirectFieldsShape]?: z.infer<(typeof redirectFieldsShape)[K]>
}
export const REDIRECT_FIELDS = Object.keys(redirectFieldsShape) as (keyof typeof redirectFieldsShape)[]

/** The same fields as every QrCode answers them (unset ones `null`, `hasPassword`/`forwardQuery` false). */
export const redirectFieldsOut = {
  rules: z.array(RedirectRule).nullable().describe('Redirect rules, in order; null when none'),
  expiresAt: z.string().datetime().nullable().describe('When the code expires (UTC); null when never'),
  expiredUrl: z.string().nullable(),
  maxScans: z.number().int().nullable(),
  afterLimitUrl: z.string().nullable(),
  hasPassword: z.boolean().describe('Whether visitors must type a password'),
  utm: Utm.nullable(),
  forwardQuery: z.boolean(),
}

/** DESIGN §14: on a static code each of these fields, present with a non-null value, is refused. */
export function redirectFieldsOnStatic(input: RedirectFieldsInput): Issue[] {
  return REDIRECT_FIELDS.filter((field) => input[field] !== undefined && input[field] !== null).map(
    (field) => ({
      path: field,
      message: `A static code encodes its content and never reaches the server, so it cannot have ${field}; use type "dynamic"`,
    }),
  )
}
