import { z } from 'zod'
import { strictObject } from './common.js'

export const Period = z.enum(['7d', '30d', '90d', 'all'])
export type Period = z.infer<typeof Period>

export const AnalyticsQuery = strictObject({
  period: Period.default('30d').describe(
    'UTC days: today and the 6, 29 or 89 before; `all` from the code’s creation',
  ),
})

export const NameCount = z.object({ name: z.string(), count: z.number().int() })
export type NameCount = z.infer<typeof NameCount>

export const DayCount = z.object({ date: z.string().date(), count: z.number().int() })

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
  })
  .describe('Scan analytics of one code; each top list holds at most 10 entries')
export type Analytics = z.infer<typeof Analytics>
