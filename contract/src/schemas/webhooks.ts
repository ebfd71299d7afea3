import { z } from 'zod'
import { httpUrl, pageQuery, strictObject, Uuid } from './common.js'
import { QrCode } from './qr-codes.js'
import { Showcase } from './showcases.js'

/** Every event a webhook can subscribe to (DESIGN §15). */
export const WEBHOOK_EVENT_TYPES = [
  'scan.created',
  'qr_code.created',
  'qr_code.updated',
  'qr_code.deleted',
  'qr_code.restored',
  'qr_code.scan_limit_reached',
  'showcase.created',
  'showcase.updated',
  'showcase.deleted',
  'webhook.test',
] as const
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES)
export type WebhookEventType = z.infer<typeof WebhookEventType>

/** At most this many webhooks per account; the next one is a 409. */
export const MAX_WEBHOOKS = 20

export const DisabledReason = z
  .enum(['gone', 'failing'])
  .nullable()
  .describe('Why the server disabled it: `gone` (a 410 answer), `failing` (too many failed deliveries)')

/** A subscription list: event types, or `["*"]` alone for every event. */
export const WebhookEvents = z
  .array(z.union([WebhookEventType, z.literal('*')]))
  .min(1, 'Must name at least one event type, or "*"')
  .max(WEBHOOK_EVENT_TYPES.length, `Must name at most ${WEBHOOK_EVENT_TYPES.length} event types`)
  .superRefine((events, ctx) => {
    if (events.includes('*') && events.length > 1)
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: '"*" stands alone: send ["*"] for every event' })
    if (new Set(events).size !== events.length)
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'Each event type may appear only once' })
  })
  .describe('Event types to receive, or `["*"]` for all')

const QrCodeIds = z
  .array(Uuid)
  .min(1, 'Must name at least one code, or be null for every code')
  .max(100, 'Must name at most 100 codes')
  .nullable()
  .describe('Only events of these codes (and their showcases); null = every code')

const description = z.string().max(500, 'Must be at most 500 characters')

export const Webhook = z.object({
  id: Uuid,
  url: z.string().describe('Where deliveries are POSTed'),
  description: z.string().nullable(),
  events: z.array(z.union([WebhookEventType, z.literal('*')])),
  qrCodeIds: z.array(Uuid).nullable().describe('null = every code'),
  isActive: z.boolean(),
  disabledReason: DisabledReason,
  createdAt: z.string().datetime(),
  updatedAt: z.string().datetime(),
})
export type Webhook = z.infer<typeof Webhook>

export const WebhookSecret = z
  .string()
  .describe('`whsec_` + base64 of 32 random bytes: the Standard Webhooks signing key. Shown once.')

export const WebhookWithSecret = Webhook.extend({ secret: WebhookSecret })
export type WebhookWithSecret = z.infer<typeof WebhookWithSecret>

export const CreateWebhook = strictObject({
  url: httpUrl().describe('http:// or https:// URL of a public host'),
  events: WebhookEvents,
  qrCodeIds: QrCodeIds.optional(),
  description: description.nullable().optional(),
})
export type CreateWebhook = z.infer<typeof CreateWebhook>
export type CreateWebhookInput = z.input<typeof CreateWebhook>

export const UpdateWebhook = strictObject({
  url: httpUrl().optional(),
  events: WebhookEvents.optional(),
  qrCodeIds: QrCodeIds.optional(),
  description: description.nullable().optional(),
  isActive: z.boolean().optional().describe('true enables again (missed events are not replayed)'),
})
export type UpdateWebhook = z.infer<typeof UpdateWebhook>

export const WebhookList = z.object({
  data: z.array(Webhook),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
})
export type WebhookList = z.infer<typeof WebhookList>

export const ListWebhooksQuery = strictObject(pageQuery())
export type ListWebhooksQuery = z.infer<typeof ListWebhooksQuery>

export const DeliveryStatus = z.enum(['pending', 'succeeded', 'failed'])
export type DeliveryStatus = z.infer<typeof DeliveryStatus>

export const WebhookDelivery = z.object({
  id: Uuid,
  eventId: z.string().describe('The `webhook-id` header: the same on every attempt'),
  type: WebhookEventType,
  status: DeliveryStatus,
  attempts: z.number().int(),
  lastAttemptAt: z.string().datetime().nullable(),
  nextAttemptAt: z.string().datetime().nullable().describe('When the next attempt is due; null once ended'),
  responseStatus: z.number().int().nullable().describe('HTTP status of the last answer; null without one'),
  responseBody: z.string().nullable().describe('The first 1 KiB of the last answer, or why there was none'),
  durationMs: z.number().int().nullable(),
})
export type WebhookDelivery = z.infer<typeof WebhookDelivery>

export const WebhookDeliveryList = z.object({
  data: z.array(WebhookDelivery),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
})
export type WebhookDeliveryList = z.infer<typeof WebhookDeliveryList>

export const ListDeliveriesQuery = strictObject(pageQuery())
export type ListDeliveriesQuery = z.infer<typeof ListDeliveriesQuery>

export const WebhookDeliveryIdParams = z.object({
  id: Uuid.describe('The webhook id'),
  deliveryId: Uuid.describe('The delivery id'),
})

// ---------------------------------------------------------------------------------------------
// The events, as receivers get them: `{ type, timestamp, data }`.
// ---------------------------------------------------------------------------------------------

/** `data` of `scan.created`: the values analytics shows (`Unknown`, `direct`), never an address. */
export const ScanCreatedData = z.object({
  qrCodeId: Uuid,
  shortCode: z.string().nullable(),
  scannedAt: z.string().datetime(),
  device: z.string(),
  browser: z.string(),
  os: z.string(),
  country: z.string(),
  city: z.string(),
  referrer: z.string(),
  visitorId: z.string().describe('A keyed hash: the same visitor of the same code has the same id'),
})
export type ScanCreatedData = z.infer<typeof ScanCreatedData>

const event = <T extends WebhookEventType, D extends z.ZodTypeAny>(type: T, data: D) =>
  z.object({ type: z.literal(type), timestamp: z.string().datetime(), data })

export const WebhookEvent = z.discriminatedUnion('type', [
  event('scan.created', ScanCreatedData),
  event('qr_code.created', QrCode),
  event('qr_code.updated', QrCode),
  event('qr_code.deleted', QrCode),
  event('qr_code.restored', QrCode),
  event('qr_code.scan_limit_reached', QrCode),
  event('showcase.created', Showcase),
  event('showcase.updated', Showcase),
  event('showcase.deleted', Showcase),
  event('webhook.test', z.object({ webhookId: Uuid })),
])
/**
 * What a webhook receives, narrowed by `type`.
 * @example if (event.type === 'scan.created') console.log(event.data.country)
 */
export type WebhookEvent = z.infer<typeof WebhookEvent>
export type WebhookEventData<T extends WebhookEventType> = Extract<WebhookEvent, { type: T }>['data']
