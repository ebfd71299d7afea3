import { initContract } from '@ts-rest/core'
import { z } from 'zod'
import { ErrorBody } from './errors.js'
import {
  AccountAnalytics,
  AccountAnalyticsQuery,
  Analytics,
  AnalyticsQuery,
  ExportQuery,
  ScansQuery,
  ScansReport,
} from './schemas/analytics.js'
import { ApiKey, ApiKeyWithSecret, CreateApiKey, RotateApiKey } from './schemas/api-keys.js'
import { Asset, AssetList, CreateAsset, ListAssetsQuery } from './schemas/assets.js'
import { BulkDeleteResult, BulkIds, BulkRestoreResult, BulkUpdate, BulkUpdateResult } from './schemas/bulk.js'
import { Uuid } from './schemas/common.js'
import {
  BatchCreate,
  BatchQuery,
  BatchResult,
  CreateQrCode,
  ImageQuery,
  ListQrCodesQuery,
  PreviewQrCode,
  QrCode,
  QrCodeList,
  UpdateQrCode,
} from './schemas/qr-codes.js'
import {
  CreateShowcase,
  ListShowcasesQuery,
  Showcase,
  ShowcaseList,
  UpdateShowcase,
} from './schemas/showcases.js'
import { TagList } from './schemas/tags.js'
import {
  CreateWebhook,
  ListDeliveriesQuery,
  ListWebhooksQuery,
  UpdateWebhook,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryIdParams,
  WebhookDeliveryList,
  WebhookList,
  WebhookSecret,
  WebhookWithSecret,
} from './schemas/webhooks.js'

const c = initContract()

/**
 * The key scope a route needs (DESIGN §3), declared once per route and checked by the
 * server's gate: `read` routes take a read or read_write key, `write` routes a write or
 * read_write key, `read_write` routes only a read_write key.
 */
export type RouteScope = 'read' | 'write' | 'read_write'
export interface RouteMetadata {
  scope: RouteScope
}
const READS = { scope: 'read' } as const satisfies RouteMetadata
const WRITES = { scope: 'write' } as const satisfies RouteMetadata
const KEY_MANAGEMENT = { scope: 'read_write' } as const satisfies RouteMetadata

type ErrorBodyType = typeof ErrorBody
/**
 * The error body's schema under a name of its own. Every route answers it at five or more
 * statuses; named, the router's declaration file refers to it instead of spelling its zod type
 * out at each of them (that alone was most of the 1.28 MB a customer's compiler had to read).
 */
export interface ErrorBodySchema extends ErrorBodyType {}
const ErrorResponse: ErrorBodySchema = ErrorBody

export const API_PREFIX = '/api/v1'

const IdParams = z.object({ id: Uuid.describe('The resource id (a UUID)') })

/** Optional on every POST: the same key and body within 24 hours return the first answer again. */
const IdempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255, 'Must be at most 255 characters')
    .optional()
    .describe('Makes the POST safe to retry: the same key and body within 24 hours return the first answer'),
})

/** Error answers any authenticated route may give (DESIGN §10). */
const commonErrors = {
  400: ErrorResponse,
  401: ErrorResponse,
  403: ErrorResponse,
  429: ErrorResponse,
  500: ErrorResponse,
  503: ErrorResponse,
} as const

const withBody = { ...commonErrors, 413: ErrorResponse, 415: ErrorResponse } as const
const SuccessBody = z.object({ success: z.boolean() })
const binary = (contentType: string) => c.otherResponse({ contentType, body: c.type<Blob>() })

const image = (format: 'png' | 'svg' | 'pdf', contentType: string, what: string) =>
  ({
    method: 'GET',
    metadata: READS,
    path: `/qr-codes/:id/image.${format}`,
    pathParams: IdParams,
    query: ImageQuery,
    responses: { ...commonErrors, 200: binary(contentType), 304: c.noBody(), 404: ErrorResponse },
    summary: `Render the code as ${format.toUpperCase()}`,
    description: `${what} The image encodes the short link for dynamic codes and the content for static ones, with the code's style. Answers carry an ETag; If-None-Match answers 304.`,
  }) as const

const preview = (format: 'png' | 'svg', contentType: string, what: string) =>
  ({
    method: 'POST',
    metadata: READS,
    path: `/qr-codes/preview.${format}`,
    headers: IdempotencyHeaders,
    body: PreviewQrCode,
    // 404: `style.logo.assetId` names no asset of the account.
    responses: { ...withBody, 200: binary(contentType), 404: ErrorResponse },
    summary: `Render an unsaved design as ${format.toUpperCase()}`,
    description: `${what} The server's own render of a code before it is saved, for a live preview: the body is a create body's symbol fields. Nothing is stored. A dynamic code is drawn with a short link of the real length, as its short code is assigned at creation. A styled design is decode-checked as on create: one that would not scan answers 400 \`unscannable\` with the checks in \`details\`. An Idempotency-Key is accepted and changes nothing: the same body renders the same bytes again.`,
  }) as const

/**
 * Every route lives under /api/v1 and answers only the status codes it names. The options are
 * applied to each part (not to the whole) so the exported `contract` can be typed by its parts:
 * its declaration then names them instead of spelling every route out a second time.
 */
const routerOptions = { pathPrefix: API_PREFIX, strictStatusCodes: true } as const

export const qrCodesContract = c.router(
  {
    list: {
      method: 'GET',
      metadata: READS,
      path: '/qr-codes',
      query: ListQrCodesQuery,
      responses: { ...commonErrors, 200: QrCodeList },
      summary: 'List QR codes',
      description:
        'Newest first. Deleted codes are left out, unless `deleted=true`: then only deleted codes that can still be restored are listed, newest deletion first, each with `deletedAt` and `purgeAt`. `total` counts every matching code.',
    },
    create: {
      method: 'POST',
      metadata: WRITES,
      path: '/qr-codes',
      headers: IdempotencyHeaders,
      body: CreateQrCode,
      // 404: `style.logo.assetId` names no asset of the account (DESIGN §13).
      responses: { ...withBody, 201: z.object({ data: QrCode }), 404: ErrorResponse, 409: ErrorResponse },
      summary: 'Create a QR code',
      description:
        'A code is `static` (encodes its content) or `dynamic` (encodes a short link whose target can change). With no `type`, a code with a `targetUrl` is dynamic. An `externalId` that another code of yours (not deleted) holds answers 409 `conflict` with `details.existingId`.',
    },
    get: {
      method: 'GET',
      metadata: READS,
      path: '/qr-codes/:id',
      pathParams: IdParams,
      responses: { ...commonErrors, 200: z.object({ data: QrCode }), 404: ErrorResponse },
      summary: 'Get a QR code',
      description: 'Answers 404 for an unknown or deleted code, and for another account’s code.',
    },
    update: {
      method: 'PATCH',
      metadata: WRITES,
      path: '/qr-codes/:id',
      pathParams: IdParams,
      body: UpdateQrCode,
      responses: { ...withBody, 200: z.object({ data: QrCode }), 404: ErrorResponse, 409: ErrorResponse },
      summary: 'Update a QR code',
      description:
        'Changes name, content, style, isActive, or the targetUrl of a dynamic code (the printed code keeps working and redirects to the new target at once).',
    },
    delete: {
      method: 'DELETE',
      metadata: WRITES,
      path: '/qr-codes/:id',
      pathParams: IdParams,
      body: c.noBody(),
      responses: { ...commonErrors, 200: SuccessBody, 404: ErrorResponse },
      summary: 'Delete a QR code',
      description:
        'A soft delete: the code disappears from reads, lists and redirects and can be restored for 30 days.',
    },
    restore: {
      method: 'POST',
      metadata: WRITES,
      path: '/qr-codes/:id/restore',
      pathParams: IdParams,
      headers: IdempotencyHeaders,
      body: c.noBody(),
      responses: { ...commonErrors, 200: z.object({ data: QrCode }), 404: ErrorResponse, 409: ErrorResponse },
      summary: 'Restore a deleted QR code',
      description:
        'Brings back a code deleted in the last 30 days. Older deletions are purged and answer 404.',
    },
    batch: {
      method: 'POST',
      metadata: WRITES,
      path: '/qr-codes/batch',
      headers: IdempotencyHeaders,
      query: BatchQuery,
      body: BatchCreate,
      responses: { ...withBody, 201: z.object({ data: BatchResult }), 409: ErrorResponse },
      summary: 'Create up to 100 QR codes',
      description:
        'Every valid item is created in one transaction; every invalid one becomes one string in `errors`, prefixed with its index, and so does an item whose `externalId` is taken (by a stored code or an earlier item of the batch). `dryRun=true` validates and creates nothing.',
    },
    analytics: {
      method: 'GET',
      metadata: READS,
      path: '/qr-codes/:id/analytics',
      pathParams: IdParams,
      query: AnalyticsQuery,
      responses: { ...commonErrors, 200: z.object({ data: Analytics }), 404: ErrorResponse },
      summary: 'Scan analytics of a code',
      description:
        'Counts of scans per UTC day and the top devices, browsers, systems, countries, cities and referrers.',
    },
    bulkUpdate: {
      method: 'POST',
      metadata: WRITES,
      path: '/qr-codes/bulk-update',
      headers: IdempotencyHeaders,
      body: BulkUpdate,
      responses: { ...withBody, 200: z.object({ data: BulkUpdateResult }), 409: ErrorResponse },
      summary: 'Change up to 100 QR codes',
      description:
        'Sets `isActive` or `tags` on every code named, or adds and removes tags (`addTags` first). The codes found are changed in one transaction; an id that names no code of yours (deleted, unknown) is `ids[i]: not found` in `errors`, and so is one that would get more than 20 tags. A code already as asked keeps its `updatedAt` and is not counted.',
    },
    bulkDelete: {
      method: 'POST',
      metadata: WRITES,
      path: '/qr-codes/bulk-delete',
      headers: IdempotencyHeaders,
      body: BulkIds,
      responses: { ...withBody, 200: z.object({ data: BulkDeleteResult }), 409: ErrorResponse },
      summary: 'Delete up to 100 QR codes',
      description:
        'Soft-deletes every code named, in one transaction; each can be restored for 30 days. An id that names no live code of yours is `ids[i]: not found` in `errors`.',
    },
    bulkRestore: {
      method: 'POST',
      metadata: WRITES,
      path: '/qr-codes/bulk-restore',
      headers: IdempotencyHeaders,
      body: BulkIds,
      responses: { ...withBody, 200: z.object({ data: BulkRestoreResult }), 409: ErrorResponse },
      summary: 'Restore up to 100 deleted QR codes',
      description:
        'Restores every code named that was deleted in the last 30 days, in one transaction. A live code is `ids[i]: not deleted`; an unknown or purged one `ids[i]: not found`; one whose externalId a live code took meanwhile names that code.',
    },
    imagePng: image('png', 'image/png', 'A PNG of `size` pixels square.'),
    imageSvg: image('svg', 'image/svg+xml', 'A compact SVG with a viewBox.'),
    imagePdf: image('pdf', 'application/pdf', 'A one-page vector PDF, for print.'),
    previewPng: preview('png', 'image/png', 'A PNG of `size` pixels square.'),
    previewSvg: preview('svg', 'image/svg+xml', 'A compact SVG with a viewBox.'),
  },
  routerOptions,
)

export const showcasesContract = c.router(
  {
    list: {
      method: 'GET',
      metadata: READS,
      path: '/showcases',
      query: ListShowcasesQuery,
      responses: { ...commonErrors, 200: ShowcaseList },
      summary: 'List showcases',
      description: 'Newest first; optionally only those of one code.',
    },
    create: {
      method: 'POST',
      metadata: WRITES,
      path: '/showcases',
      headers: IdempotencyHeaders,
      body: CreateShowcase,
      responses: { ...withBody, 201: z.object({ data: Showcase }), 404: ErrorResponse, 409: ErrorResponse },
      summary: 'Create a showcase',
      description: 'A public landing page for one of your codes, at `url`. A taken slug answers 409.',
    },
    get: {
      method: 'GET',
      metadata: READS,
      path: '/showcases/:id',
      pathParams: IdParams,
      responses: { ...commonErrors, 200: z.object({ data: Showcase }), 404: ErrorResponse },
      summary: 'Get a showcase',
      description: 'Answers 404 for an unknown showcase and for another account’s.',
    },
    update: {
      method: 'PATCH',
      metadata: WRITES,
      path: '/showcases/:id',
      pathParams: IdParams,
      body: UpdateShowcase,
      responses: { ...withBody, 200: z.object({ data: Showcase }), 404: ErrorResponse, 409: ErrorResponse },
      summary: 'Update a showcase',
      description: 'Also sets `socialLinks` (at most 10) and `ctaButtons` (at most 5).',
    },
    delete: {
      method: 'DELETE',
      metadata: WRITES,
      path: '/showcases/:id',
      pathParams: IdParams,
      body: c.noBody(),
      responses: { ...commonErrors, 200: SuccessBody, 404: ErrorResponse },
      summary: 'Delete a showcase',
      description: 'The page answers 404 from then on.',
    },
  },
  routerOptions,
)

export const apiKeysContract = c.router(
  {
    list: {
      method: 'GET',
      metadata: KEY_MANAGEMENT,
      path: '/api-keys',
      responses: { ...commonErrors, 200: z.object({ data: z.array(ApiKey) }) },
      summary: 'List API keys',
      description: 'The account’s keys that still work, never their secrets. Needs a read_write key.',
    },
    create: {
      method: 'POST',
      metadata: KEY_MANAGEMENT,
      path: '/api-keys',
      headers: IdempotencyHeaders,
      body: CreateApiKey,
      responses: { ...withBody, 201: z.object({ data: ApiKeyWithSecret }), 409: ErrorResponse },
      summary: 'Create an API key',
      description: 'The secret is in this answer only. Needs a read_write key.',
    },
    revoke: {
      method: 'DELETE',
      metadata: KEY_MANAGEMENT,
      path: '/api-keys/:id',
      pathParams: IdParams,
      body: c.noBody(),
      responses: { ...commonErrors, 200: SuccessBody, 404: ErrorResponse },
      summary: 'Revoke an API key',
      description: 'The key stops working at once.',
    },
    rotate: {
      method: 'POST',
      metadata: KEY_MANAGEMENT,
      path: '/api-keys/:id/rotate',
      pathParams: IdParams,
      headers: IdempotencyHeaders,
      body: RotateApiKey.optional(),
      responses: {
        ...withBody,
        201: z.object({ data: ApiKeyWithSecret }),
        404: ErrorResponse,
        409: ErrorResponse,
      },
      summary: 'Rotate an API key',
      description:
        'Creates a new key with the same name, scope and environment. The old one keeps working for `gracePeriodSeconds`, then is revoked.',
    },
  },
  routerOptions,
)

export const webhooksContract = c.router(
  {
    list: {
      method: 'GET',
      metadata: READS,
      path: '/webhooks',
      query: ListWebhooksQuery,
      responses: { ...commonErrors, 200: WebhookList },
      summary: 'List webhooks',
      description: 'Newest first, never their secrets.',
    },
    create: {
      method: 'POST',
      metadata: WRITES,
      path: '/webhooks',
      headers: IdempotencyHeaders,
      body: CreateWebhook,
      responses: {
        ...withBody,
        201: z.object({ data: WebhookWithSecret }),
        404: ErrorResponse,
        409: ErrorResponse,
      },
      summary: 'Create a webhook',
      description:
        'Events are POSTed to `url` as Standard Webhooks v1, signed with `secret` (in this answer only). A `url` whose host is or resolves to a private, loopback, link-local or reserved address is refused (400 at `url`); a `qrCodeIds` entry that is not one of your codes answers 404; the 21st webhook answers 409.',
    },
    get: {
      method: 'GET',
      metadata: READS,
      path: '/webhooks/:id',
      pathParams: IdParams,
      responses: { ...commonErrors, 200: z.object({ data: Webhook }), 404: ErrorResponse },
      summary: 'Get a webhook',
      description: 'Answers 404 for an unknown webhook and for another account’s.',
    },
    update: {
      method: 'PATCH',
      metadata: WRITES,
      path: '/webhooks/:id',
      pathParams: IdParams,
      body: UpdateWebhook,
      responses: { ...withBody, 200: z.object({ data: Webhook }), 404: ErrorResponse },
      summary: 'Update a webhook',
      description:
        '`isActive: true` enables a disabled webhook again (and clears `disabledReason`); what it missed is not replayed.',
    },
    delete: {
      method: 'DELETE',
      metadata: WRITES,
      path: '/webhooks/:id',
      pathParams: IdParams,
      body: c.noBody(),
      responses: { ...commonErrors, 200: SuccessBody, 404: ErrorResponse },
      summary: 'Delete a webhook',
      description: 'Pending deliveries are dropped with it.',
    },
    test: {
      method: 'POST',
      metadata: WRITES,
      path: '/webhooks/:id/test',
      pathParams: IdParams,
      headers: IdempotencyHeaders,
      body: c.noBody(),
      responses: {
        ...commonErrors,
        202: z.object({ data: WebhookDelivery }),
        404: ErrorResponse,
        409: ErrorResponse,
      },
      summary: 'Send a test event',
      description:
        'Queues a `webhook.test` event (`data: { webhookId }`) for this webhook, whatever its filters.',
    },
    deliveries: {
      method: 'GET',
      metadata: READS,
      path: '/webhooks/:id/deliveries',
      pathParams: IdParams,
      query: ListDeliveriesQuery,
      responses: { ...commonErrors, 200: WebhookDeliveryList, 404: ErrorResponse },
      summary: 'List a webhook’s deliveries',
      description: 'Newest first, with the last attempt’s status, answer (first 1 KiB) and duration.',
    },
    redeliver: {
      method: 'POST',
      metadata: WRITES,
      path: '/webhooks/:id/deliveries/:deliveryId/redeliver',
      pathParams: WebhookDeliveryIdParams,
      headers: IdempotencyHeaders,
      body: c.noBody(),
      responses: {
        ...commonErrors,
        202: z.object({ data: WebhookDelivery }),
        404: ErrorResponse,
        409: ErrorResponse,
      },
      summary: 'Redeliver an event',
      description:
        'Queues one more attempt of the same delivery (same `webhook-id`); its status follows that answer.',
    },
    rotateSecret: {
      method: 'POST',
      metadata: WRITES,
      path: '/webhooks/:id/rotate-secret',
      pathParams: IdParams,
      headers: IdempotencyHeaders,
      body: c.noBody(),
      responses: {
        ...commonErrors,
        201: z.object({ data: z.object({ secret: WebhookSecret }) }),
        404: ErrorResponse,
        409: ErrorResponse,
      },
      summary: 'Rotate a webhook’s secret',
      description:
        'A new secret, shown once. For 24 hours every delivery carries two signatures, the new and the old one.',
    },
  },
  routerOptions,
)

export const tagsContract = c.router(
  {
    list: {
      method: 'GET',
      metadata: READS,
      path: '/tags',
      responses: { ...commonErrors, 200: TagList },
      summary: 'List tags',
      description:
        'Every tag on your codes that are not deleted (inactive ones included), by name, with how many codes carry it.',
    },
  },
  routerOptions,
)

/** Images of the account, such as logos for `style.logo` (DESIGN §13). */
export const assetsContract = c.router(
  {
    list: {
      method: 'GET',
      metadata: READS,
      path: '/assets',
      query: ListAssetsQuery,
      responses: { ...commonErrors, 200: AssetList },
      summary: 'List assets',
      description: 'Newest first.',
    },
    create: {
      method: 'POST',
      metadata: WRITES,
      path: '/assets',
      headers: IdempotencyHeaders,
      body: CreateAsset,
      responses: { ...withBody, 201: z.object({ data: Asset }), 409: ErrorResponse },
      summary: 'Upload an asset',
      description:
        'A PNG, JPEG, WebP or SVG image, base64, at most 512 KiB decoded and 4096×4096 px. It is decoded and re-encoded as PNG (scaled down to fit 1024×1024, metadata stripped); SVG is rasterised without scripts or fetching anything it references. Bytes that are not the declared type are a 400.',
    },
    get: {
      method: 'GET',
      metadata: READS,
      path: '/assets/:id',
      pathParams: IdParams,
      responses: { ...commonErrors, 200: z.object({ data: Asset }), 404: ErrorResponse },
      summary: 'Get an asset',
      description: 'Its metadata; the image is at `url`.',
    },
    content: {
      method: 'GET',
      metadata: READS,
      path: '/assets/:id/content',
      pathParams: IdParams,
      responses: { ...commonErrors, 200: binary('image/png'), 404: ErrorResponse },
      summary: 'Download an asset',
      description: 'The stored PNG.',
    },
    delete: {
      method: 'DELETE',
      metadata: WRITES,
      path: '/assets/:id',
      pathParams: IdParams,
      body: c.noBody(),
      responses: { ...commonErrors, 200: SuccessBody, 404: ErrorResponse, 409: ErrorResponse },
      summary: 'Delete an asset',
      description:
        'Refused with 409 `conflict` while the style of a code uses it (a deleted code still does until it is purged).',
    },
  },
  routerOptions,
)

/**
 * The whole qrctl API v1. Server, SDK and CLI are all derived from this object.
 * @example const client = initClient(contract, { baseUrl: 'http://localhost:3000' })
 */
/** DESIGN §16: windows in any zone, across codes, and the CSV export. */
export const analyticsContract = c.router(
  {
    account: {
      method: 'GET',
      metadata: READS,
      path: '/analytics',
      query: AccountAnalyticsQuery,
      responses: { ...commonErrors, 200: z.object({ data: AccountAnalytics }), 404: ErrorResponse },
      summary: 'Scan analytics across codes',
      description:
        'The analytics of the chosen codes (every live code of the account by default) over one window, in one time zone, with the top codes. A visitor counts once across codes.',
    },
    export: {
      method: 'GET',
      metadata: READS,
      path: '/analytics/export',
      query: ExportQuery,
      responses: {
        ...commonErrors,
        200: c.otherResponse({ contentType: 'text/csv', body: c.type<string>() }),
        404: ErrorResponse,
      },
      summary: 'Export scans as CSV',
      description:
        'One row per scan in time order, streamed: scannedAt (with the zone’s offset), qrCodeId, shortCode, name, device, browser, os, country, city, referrer, visitorId. Cells starting with = + - @, a tab or a carriage return are prefixed with an apostrophe. A server process runs a few exports at once (on PostgreSQL, a third of its connections); beyond that it answers 503 service_unavailable with Retry-After.',
    },
    scans: {
      method: 'GET',
      metadata: READS,
      path: '/qr-codes/:id/scans',
      pathParams: IdParams,
      query: ScansQuery,
      responses: { ...commonErrors, 200: z.object({ data: ScansReport }), 404: ErrorResponse },
      summary: 'Scans of a code per day',
      description:
        'Scans per local day (today and the 29 days before by default), country, device and referrer.',
    },
  },
  routerOptions,
)

export const contract: {
  qrCodes: typeof qrCodesContract
  showcases: typeof showcasesContract
  apiKeys: typeof apiKeysContract
  webhooks: typeof webhooksContract
  tags: typeof tagsContract
  assets: typeof assetsContract
  analytics: typeof analyticsContract
} = {
  qrCodes: qrCodesContract,
  showcases: showcasesContract,
  apiKeys: apiKeysContract,
  webhooks: webhooksContract,
  tags: tagsContract,
  assets: assetsContract,
  analytics: analyticsContract,
}

export type Contract = typeof contract
