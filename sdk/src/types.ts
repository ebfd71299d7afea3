import type { contract } from '@qrctl/contract'
import type { AppRoute, ClientInferRequest, ClientInferResponseBody } from '@ts-rest/core'

/*
 * Every type here is inferred from the contract: the SDK never spells out a field itself.
 * Responses are what the client receives (zod output), requests what it may send (zod
 * input, so fields with a server default are optional).
 */

type Routes = typeof contract
type Ok<R extends AppRoute, S extends keyof R['responses']> = ClientInferResponseBody<R, S>
type Request<R extends AppRoute> = ClientInferRequest<R>

/** A QR code, as the API returns it. */
export type QrCode = Ok<Routes['qrCodes']['get'], 200>['data']
/** One page of QR codes: `{ data, total, limit, offset }`. */
export type QrCodePage = Ok<Routes['qrCodes']['list'], 200>
/** Filters and paging of `qrCodes.list`: `limit` (1–100, default 50), `offset`, `type`. */
export type ListQrCodesParams = NonNullable<Request<Routes['qrCodes']['list']>['query']>
/** A new QR code: `name`, `contentType`, `content`, and optionally `type`, `targetUrl`, `style`. */
export type CreateQrCodeParams = Request<Routes['qrCodes']['create']>['body']
/** Changes to a QR code; every field is optional. */
export type UpdateQrCodeParams = Request<Routes['qrCodes']['update']>['body']
/** The answer of a batch: `{ created, errors, items }`. */
export type BatchResult = Ok<Routes['qrCodes']['batch'], 201>['data']
/** Scan analytics of one code. */
export type Analytics = Ok<Routes['qrCodes']['analytics'], 200>['data']
/** `period`: `7d`, `30d` (default), `90d` or `all`. */
export type AnalyticsParams = NonNullable<Request<Routes['qrCodes']['analytics']>['query']>
/** `size` (PNG pixels, 64–4096, default 512) and `download`. */
export type ImageQueryParams = NonNullable<Request<Routes['qrCodes']['imagePng']>['query']>
/** An unsaved design for `qrCodes.preview`: a create body's symbol fields and an optional PNG `size`. */
export type PreviewQrCodeParams = Request<Routes['qrCodes']['previewPng']>['body']

/** Changes to up to 100 codes: `ids`, and `set` (`isActive`, `tags`), `addTags`, `removeTags`. */
export type BulkUpdateParams = Request<Routes['qrCodes']['bulkUpdate']>['body']
/** `{ updated, errors }`: codes changed, and one `ids[i]: …` string per id not changed. */
export type BulkUpdateResult = Ok<Routes['qrCodes']['bulkUpdate'], 200>['data']
/** `{ deleted, errors }`. */
export type BulkDeleteResult = Ok<Routes['qrCodes']['bulkDelete'], 200>['data']
/** `{ restored, errors }`. */
export type BulkRestoreResult = Ok<Routes['qrCodes']['bulkRestore'], 200>['data']
/** A tag in use and how many codes (not deleted) carry it. */
export type TagCount = Ok<Routes['tags']['list'], 200>['data'][number]

/** A showcase (landing page), as the API returns it. */
export type Showcase = Ok<Routes['showcases']['get'], 200>['data']
/** One page of showcases: `{ data, total, limit, offset }`. */
export type ShowcasePage = Ok<Routes['showcases']['list'], 200>
/** Filters and paging of `showcases.list`: `limit`, `offset`, `qrCodeId`. */
export type ListShowcasesParams = NonNullable<Request<Routes['showcases']['list']>['query']>
/** A new showcase: `qrCodeId`, `title`, and optional page settings. */
export type CreateShowcaseParams = Request<Routes['showcases']['create']>['body']
/** Changes to a showcase, including `socialLinks` and `ctaButtons`. */
export type UpdateShowcaseParams = Request<Routes['showcases']['update']>['body']

/** An API key without its secret. */
export type ApiKey = Ok<Routes['apiKeys']['list'], 200>['data'][number]
/** A new or rotated API key, with its `secret` (shown this once). */
export type ApiKeyWithSecret = Ok<Routes['apiKeys']['create'], 201>['data']
/** `name`, and optionally `environment` and `scope` (default `read_write`). */
export type CreateApiKeyParams = Request<Routes['apiKeys']['create']>['body']
/** `gracePeriodSeconds` (0–86400, default 0): how long the old key keeps working. */
export type RotateApiKeyParams = Request<Routes['apiKeys']['rotate']>['body']

/** The answer of every delete and revoke: `{ success }`. */
export type DeleteResult = Ok<Routes['qrCodes']['delete'], 200>

/** A webhook, as the API returns it (never with its secret). */
export type Webhook = Ok<Routes['webhooks']['get'], 200>['data']
/** A new webhook, with its `secret` (shown this once). */
export type WebhookWithSecret = Ok<Routes['webhooks']['create'], 201>['data']
/** One page of webhooks: `{ data, total, limit, offset }`. */
export type WebhookPage = Ok<Routes['webhooks']['list'], 200>
/** Paging of `webhooks.list`: `limit`, `offset`. */
export type ListWebhooksParams = NonNullable<Request<Routes['webhooks']['list']>['query']>
/** A new webhook: `url`, `events`, and optionally `qrCodeIds` and `description`. */
export type CreateWebhookParams = Request<Routes['webhooks']['create']>['body']
/** Changes to a webhook: `url`, `events`, `qrCodeIds`, `description`, `isActive`. */
export type UpdateWebhookParams = Request<Routes['webhooks']['update']>['body']
/** One delivery of an event to a webhook, with its last attempt. */
export type WebhookDelivery = Ok<Routes['webhooks']['deliveries'], 200>['data'][number]
/** One page of a webhook's deliveries, newest first. */
export type WebhookDeliveryPage = Ok<Routes['webhooks']['deliveries'], 200>
/** Paging of `webhooks.deliveries`: `limit`, `offset`. */
export type ListDeliveriesParams = NonNullable<Request<Routes['webhooks']['deliveries']>['query']>
/** One redirect rule of a dynamic code: `{ targetUrl, conditions }`; the first that holds wins. */
export type RedirectRule = NonNullable<QrCode['rules']>[number]
/** One condition of a redirect rule, by `type`: device, os, country, language, schedule, after, before, query. */
export type RuleCondition = RedirectRule['conditions'][number]
/** `utm_*` parameters added to a code's own destinations. */
export type Utm = NonNullable<QrCode['utm']>
/** An image of the account (a logo for `style.logo`), stored as PNG. */
export type Asset = Ok<Routes['assets']['get'], 200>['data']
/** One page of assets, newest first. */
export type AssetPage = Ok<Routes['assets']['list'], 200>
export type ListAssetsParams = NonNullable<Request<Routes['assets']['list']>['query']>
/** A new asset: `contentType` and the image as base64 `data`. */
export type CreateAssetParams = Request<Routes['assets']['create']>['body']
/** Analytics over several codes, with `topCodes` (DESIGN §16). */
export type AccountAnalytics = Ok<Routes['analytics']['account'], 200>['data']
/** `qrCodeIds` (comma-separated), `period` or `from`/`to`, `timezone`, `compare`. */
export type AccountAnalyticsParams = NonNullable<Request<Routes['analytics']['account']>['query']>
/** Scans of one code per local day, country, device and referrer. */
export type ScansReport = Ok<Routes['analytics']['scans'], 200>['data']
/** `from`/`to` and `timezone` of `analytics.scans`. */
export type ScansParams = NonNullable<Request<Routes['analytics']['scans']>['query']>
/** `from` and `to` (required), `timezone`, `qrCodeIds` of the CSV export. */
export type ExportScansParams = Request<Routes['analytics']['export']>['query']
