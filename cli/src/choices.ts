/**
 * The values of the contract's enums that flags accept. Spelled out here, not imported, so
 * that building the command tree does not load the contract (zod and ts-rest, ~30 ms) before
 * the first output; test/cli/choices.test.ts fails the moment they drift from the contract.
 */
export const CONTENT_TYPES = ['url', 'text', 'email', 'phone', 'sms', 'wifi', 'vcard'] as const
export const QR_TYPES = ['static', 'dynamic'] as const
export const EC_LEVELS = ['L', 'M', 'Q', 'H'] as const
export const PERIODS = ['7d', '30d', '90d', 'all'] as const
export const IMAGE_FORMATS = ['png', 'svg', 'pdf'] as const
export const SCOPES = ['read', 'write', 'read_write'] as const
export const TEMPLATES = ['minimal', 'modern', 'bold', 'professional', 'dark'] as const
export const SORTS = [
  'createdAt',
  '-createdAt',
  'updatedAt',
  '-updatedAt',
  'name',
  '-name',
  'totalScans',
  '-totalScans',
] as const

export type ContentTypeChoice = (typeof CONTENT_TYPES)[number]
export type QrTypeChoice = (typeof QR_TYPES)[number]
export type ImageFormatChoice = (typeof IMAGE_FORMATS)[number]
export type SortChoice = (typeof SORTS)[number]
