export type { BatchAnswer, BatchesOptions, BatchSlice } from './batch.js'
export { Qrctl } from './client.js'
export {
  type ApiErrorCode,
  type ErrorDetails,
  QrctlApiError,
  QrctlAuthenticationError,
  QrctlConflictError,
  QrctlConnectionError,
  QrctlError,
  QrctlNotFoundError,
  QrctlPermissionError,
  QrctlRateLimitError,
  QrctlServerError,
  QrctlUnscannableError,
  QrctlValidationError,
} from './errors.js'
export type {
  FetchFn,
  QrctlBaseOptions,
  QrctlOptions,
  QrctlSessionOptions,
  RateLimit,
  RequestOptions,
  ResponseEvent,
  ResponseInfo,
  RetryEvent,
} from './options.js'
export type { AnalyticsResource } from './resources/analytics.js'
export type { ApiKeys } from './resources/api-keys.js'
export type { Assets } from './resources/assets.js'
export type {
  BatchOptions,
  CreateManyOptions,
  CreateManyProgress,
  ImageFormat,
  ImageParams,
  PreviewParams,
  QrCodes,
} from './resources/qr-codes.js'
export type { Showcases } from './resources/showcases.js'
export type { Tags } from './resources/tags.js'
export type { Webhooks } from './resources/webhooks.js'
export type * from './types.js'
export {
  QrctlWebhookVerificationError,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookVerificationReason,
} from './verify-webhook.js'
