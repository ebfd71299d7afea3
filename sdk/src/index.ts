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
  QrctlValidationError,
} from './errors.js'
export type {
  FetchFn,
  QrctlOptions,
  RateLimit,
  RequestOptions,
  ResponseEvent,
  ResponseInfo,
  RetryEvent,
} from './options.js'
export type { AnalyticsResource } from './resources/analytics.js'
export type { ApiKeys } from './resources/api-keys.js'
export type {
  BatchOptions,
  CreateManyOptions,
  CreateManyProgress,
  ImageFormat,
  ImageParams,
  QrCodes,
} from './resources/qr-codes.js'
export type { Showcases } from './resources/showcases.js'
export type * from './types.js'
