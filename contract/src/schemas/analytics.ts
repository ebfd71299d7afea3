import { z } from 'zod'
import { isTimeZone, strictObject, Uuid } from './common.js'
import { TagFilter } from './tags.js'

export const Period = z.enum(['7d', '30d', '90d', 'all'])
export type Period = z.infer<typeof Period>

/** A calendar date that exists (`2026-02-30` does not). */
function isCalendarDate(value: string): boolean {
  const date = new Date(`${value}T00:00:00Z`)
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value
}

/**
 * `YYYY-MM-DD`, a local day of the request's `timezone`, from 2000 to 2999: no scan can be
 * older, and the bound keeps every window and the one before it within what dates can hold.
 */
export const LocalDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Expected a date as YYYY-MM-DD')
  .refine(isCalendarDate, 'Not a calendar date')
  .refine(
    (value) => value >= '2000-01-01' && value <= '2999-12-31',
    'Must be between 2000-01-01 and 2999-12-31',
  )

export const TimeZone = z
  .string()
  .min(1, 'Must not be empty')
  .max(64, 'Must be at most 64 characters')
  .refine(isTimeZone, 'Unknown time zone: use an IANA name such as Europe/Berlin or Asia/Kathmandu')
  .describe('IANA time zone whose local days the window uses; default UTC')

export const Compare = z.enum(['previous'])

/** Window parameters shared by every analytics route (DESIGN §16). */
const windowShape = {
  period: Period.optional().describe(
    'Local days: today and the 6, 29 or 89 before; `all` from the creation day. Default `30d`; never with `from`/`to`',
  ),
  from: LocalDate.optional().describe('First local day, inclusive (with `to`; at most 366 days)'),
  to: LocalDate.optional().describe('Last local day, inclusive (with `from`)'),
  timezone: TimeZone.optional(),
  compare: Compare.optional().describe('`previous` adds the window of as many days just before'),
}

export const AnalyticsQuery = strictObject(windowShape)
export type AnalyticsQuery = z.infer<typeof AnalyticsQuery>

/** 1–100 comma-separated code ids. */
export const QrCodeIds = z
  .string()
  .transform((value, ctx) => {
    const ids = value.split(',').map((id) => id.trim())
    if (ids.length > 100) {
      ctx.addIssue({ code: 'custom', message: 'At most 100 ids' })
      return z.NEVER
    }
    ids.forEach((id, i) => {
      if (!Uuid.safeParse(id).success)
        ctx.addIssue({ code: 'custom', message: `Item ${i + 1} is not a UUID` })
    })
    return [...new Set(ids)]
  })
  .describe('1–100 comma-separated code ids; every live code of the account when left out')

/** `tag`, repeatable, as on the code list (DESIGN §17): codes carrying every one. */
const tagFilter = TagFilter.optional().describe(
  'Only codes with this tag; repeat it (`tag=a&tag=b`) for codes with every one',
)

export const AccountAnalyticsQuery = strictObject({
  ...windowShape,
  qrCodeIds: QrCodeIds.optional(),
  tag: tagFilter,
})
export type AccountAnalyticsQuery = z.infer<typeof AccountAnalyticsQuery>

export const ScansQuery = strictObject({
  from: windowShape.from,
  to: windowShape.to,
  timezone: TimeZone.optional(),
})
export type ScansQuery = z.infer<typeof ScansQuery>

export const ExportQuery = strictObject({
  from: LocalDate.describe('First local day, inclusive'),
  to: LocalDate.describe('Last local day, inclusive (at most 366 days)'),
  timezone: TimeZone.optional(),
  qrCodeIds: QrCodeIds.optional(),
  tag: tagFilter,
})
export type ExportQuery = z.infer<typeof ExportQuery>

export const NameCount = z.object({ name: z.string(), count: z.number().int() })
export type NameCount = z.infer<typeof NameCount>

export const DayCount = z.object({ date: z.string().date(), count: z.number().int() })
export type DayCount = z.infer<typeof DayCount>

export const PreviousWindow = z
  .object({
    from: z.string().date(),
    to: z.string().date(),
    totalEvents: z.number().int(),
    uniqueVisitors: z.number().int(),
  })
  .describe('The window of as many local days just before (`compare=previous`)')

export const Analytics = z
  .object({
    totalEvents: z.number().int(),
    uniqueVisitors: z.number().int(),
    eventsByDay: z.array(DayCount).describe('Every day of the window, ascending, zeros included'),
    topDevices: z.array(NameCount),
    topBrowsers: z.array(NameCount),
    topOs: z.array(NameCount),
    topCountries: z.array(NameCount).describe('ISO 3166-1 alpha-2 codes'),
    topCities: z.array(NameCount),
    topReferrers: z.array(NameCount).describe('Referrer host, or `direct`'),
    from: z.string().date().optional().describe('First local day of the window as applied'),
    to: z.string().date().optional().describe('Last local day of the window as applied'),
    timezone: z.string().optional().describe('The zone as sent (`UTC` by default)'),
    previous: PreviousWindow.optional(),
  })
  .describe('Scan analytics of one code; each top list holds at most 10 entries')
export type Analytics = z.infer<typeof Analytics>

export const CodeCount = z.object({ id: z.string().uuid(), name: z.string(), count: z.number().int() })
export type CodeCount = z.infer<typeof CodeCount>

export const AccountAnalytics = Analytics.extend({
  topCodes: z
    .array(CodeCount)
    .describe('At most 10 codes with a scan in the window, count descending then name ascending'),
}).describe('Scan analytics over several codes; a visitor is counted once across them')
export type AccountAnalytics = z.infer<typeof AccountAnalytics>

export const ScansReport = z
  .object({
    from: z.string().date(),
    to: z.string().date(),
    timezone: z.string(),
    totalEvents: z.number().int(),
    byDate: z.array(DayCount).describe('Every local day of the window, ascending, zeros included'),
    byCountry: z.array(NameCount),
    byDevice: z.array(NameCount),
    byReferrer: z.array(NameCount),
  })
  .describe('Scans of one code per local day, country, device and referrer')
export type ScansReport = z.infer<typeof ScansReport>

/** The export's columns, in order (DESIGN §16). */
export const EXPORT_COLUMNS = [
  'scannedAt',
  'qrCodeId',
  'shortCode',
  'name',
  'device',
  'browser',
  'os',
  'country',
  'city',
  'referrer',
  'visitorId',
] as const
