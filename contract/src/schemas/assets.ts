import { z } from 'zod'
import { pageQuery, strictObject } from './common.js'

/** The image types an upload may be; every asset is stored and served as PNG. */
export const ASSET_UPLOAD_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml'] as const

/** Upload limits (DESIGN §13): decoded bytes, and pixels on either side. */
export const ASSET_LIMITS = {
  maxBytes: 512 * 1024,
  maxPixels: 4096,
  /** Stored PNGs are scaled down (never up) to fit this square. */
  storedMaxPixels: 1024,
} as const

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/** A new asset: an image, base64 in the JSON body. */
export const CreateAsset = strictObject({
  name: z.string().min(1, 'Must not be empty').max(200, 'Must be at most 200 characters').optional(),
  contentType: z
    .enum(ASSET_UPLOAD_TYPES, {
      errorMap: () => ({ message: `Must be one of ${ASSET_UPLOAD_TYPES.join(', ')}` }),
    })
    .describe('What the uploaded bytes are; the asset is stored as PNG whatever they were'),
  data: z
    .string()
    .min(1, 'Must not be empty')
    .refine((value) => value.length % 4 === 0 && BASE64.test(value), 'Must be standard base64 (RFC 4648)')
    .describe('The image, base64; at most 512 KiB decoded and 4096×4096 px'),
}).describe('An image to upload, such as a logo')
export type CreateAsset = z.infer<typeof CreateAsset>

export const Asset = z
  .object({
    id: z.string().uuid(),
    name: z.string().nullable(),
    contentType: z.literal('image/png').describe('Always image/png: uploads are re-encoded'),
    width: z.number().int(),
    height: z.number().int(),
    bytes: z.number().int().describe('Size of the stored PNG'),
    createdAt: z.string().datetime(),
    url: z.string().url().describe('Absolute URL of the stored PNG (an authenticated GET)'),
  })
  .describe('An image of the account, re-encoded as PNG, such as a logo for `style.logo`')
export type Asset = z.infer<typeof Asset>

export const ListAssetsQuery = strictObject({ ...pageQuery() })
export type ListAssetsQuery = z.infer<typeof ListAssetsQuery>

export const AssetList = z.object({
  data: z.array(Asset),
  total: z.number().int().describe('How many assets the account has'),
  limit: z.number().int(),
  offset: z.number().int(),
})
export type AssetList = z.infer<typeof AssetList>
