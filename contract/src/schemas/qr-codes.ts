import { z } from 'zod'
import { contrastRatio, relativeLuminance } from '../payload/contrast.js'
import { CONTENT_TYPES, encodePayload } from '../payload/encoders.js'
import { HexColor, httpUrl, pageQuery, QueryBoolean, strictObject } from './common.js'
import { designColorIssues, designShape } from './designs.js'
import { redirectFieldsOnStatic, redirectFieldsOut, redirectFieldsShape } from './redirect-rules.js'
import { TagFilter, Tags } from './tags.js'

export const QrType = z
  .enum(['static', 'dynamic'])
  .describe('`static` encodes the content; `dynamic` routes through a short link')
export type QrType = z.infer<typeof QrType>

export const ContentTypeSchema = z
  .enum(CONTENT_TYPES)
  .describe('What the content is: url, text, email, phone, sms, wifi or vcard')

export const ErrorCorrectionLevel = z.enum(['L', 'M', 'Q', 'H'])
export type ErrorCorrectionLevel = z.infer<typeof ErrorCorrectionLevel>

export const STYLE_DEFAULTS = {
  foregroundColor: '#000000',
  backgroundColor: '#FFFFFF',
  errorCorrectionLevel: 'M',
  margin: 4,
} as const satisfies Required<StyleShape>

export const MIN_CONTRAST_RATIO = 3

const styleShape = {
  foregroundColor: HexColor.optional().describe('Colour of the dark modules (default #000000)'),
  backgroundColor: HexColor.optional().describe(
    'Colour of the light modules and quiet zone (default #FFFFFF)',
  ),
  errorCorrectionLevel: ErrorCorrectionLevel.optional().describe(
    'L 7%, M 15% (default), Q 25%, H 30% recoverable',
  ),
  margin: z
    .number()
    .int('Must be a whole number')
    .min(0, 'Must be 0–16')
    .max(16, 'Must be 0–16')
    .optional()
    .describe('Quiet zone in modules, 0–16 (default 4)'),
  // DESIGN §13: shapes, finder colour, gradient, frame (schemas/designs.ts).
  ...designShape,
}
/** The v1 keys, which all have defaults; the §13 keys default to "not drawn". */
type StyleShape = Pick<
  z.infer<z.ZodObject<typeof styleShape>>,
  'foregroundColor' | 'backgroundColor' | 'errorCorrectionLevel' | 'margin'
>

/**
 * How a code is drawn. Every key is optional; unknown keys are rejected, and so are colour
 * pairs scanners misread: contrast below 3:1, or a foreground lighter than the background.
 */
export const Style = strictObject(styleShape).superRefine((style, ctx) => {
  const fg = style.foregroundColor ?? STYLE_DEFAULTS.foregroundColor
  const bg = style.backgroundColor ?? STYLE_DEFAULTS.backgroundColor
  const ratio = contrastRatio(fg, bg)
  if (ratio < MIN_CONTRAST_RATIO) {
    // Rounded down: 2.995 shown as "3.00:1" would contradict "needs at least 3:1".
    const shown = (Math.floor(ratio * 100) / 100).toFixed(2)
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['foregroundColor'],
      message: `Contrast between ${fg} and ${bg} is ${shown}:1; scanners need at least ${MIN_CONTRAST_RATIO}:1`,
    })
  } else if (relativeLuminance(fg) > relativeLuminance(bg)) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['foregroundColor'],
      message: `Foreground ${fg} is lighter than background ${bg}; many scanners cannot read inverted codes`,
    })
  }
  for (const issue of designColorIssues(style, fg, bg, MIN_CONTRAST_RATIO))
    ctx.addIssue({ code: z.ZodIssueCode.custom, ...issue })
})
export type Style = z.infer<typeof Style>

/** The style as stored and returned (already validated). */
export const StyleOut = z.object(styleShape)

const name = z.string().min(1, 'Must not be empty').max(200, 'Must be at most 200 characters')
const content = z
  .string()
  .min(1, 'Must not be empty')
  .refine((value) => new TextEncoder().encode(value).length <= 4096, 'Must be at most 4096 bytes')
const targetUrl = httpUrl(2048)

/** The customer's own key for a code: 1–255 characters, unique per account among live codes. */
export const ExternalId = z
  .string()
  .min(1, 'Must not be empty')
  .max(255, 'Must be at most 255 characters')
  .describe('Your own key for the code (1–255 characters), unique among your codes that are not deleted')

/** The type a new code gets: explicit `type`, else `dynamic` when a target URL is given (DESIGN §5). */
export function resolveType(input: {
  type?: QrType | undefined
  targetUrl?: string | null | undefined
}): QrType {
  return input.type ?? (input.targetUrl ? 'dynamic' : 'static')
}

/** The redirect target a new dynamic code gets: its `targetUrl`, or its content when that is a URL. */
export function resolveTargetUrl(input: {
  contentType: string
  content: string
  targetUrl?: string | null | undefined
}): string | null {
  return input.targetUrl ?? (input.contentType === 'url' ? input.content : null)
}

const createShape = {
  name: name.describe('Your label for the code, 1–200 characters'),
  contentType: ContentTypeSchema,
  content: content.describe('The content, validated for its contentType (1–4096 bytes)'),
  type: QrType.optional().describe('Default `static`, or `dynamic` when targetUrl is given'),
  targetUrl: targetUrl.nullable().optional().describe('Redirect destination of a dynamic code (http/https)'),
  style: Style.nullable().optional(),
  externalId: ExternalId.optional(),
  tags: Tags.optional(),
  ...redirectFieldsShape,
}

/** A new QR code. */
export const CreateQrCode = strictObject(createShape, {
  short_code: "Unknown field 'short_code': short codes are assigned by the service",
  shortCode: "Unknown field 'shortCode': short codes are assigned by the service",
}).superRefine((input, ctx) => {
  // Content that already failed its length rule gets no second message from its encoder.
  const encoded = input.content.length > 0 ? encodePayload(input) : { ok: true as const }
  if (!encoded.ok) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['content'], message: encoded.message })
  const type = resolveType(input)
  if (type === 'static' && input.targetUrl) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['targetUrl'],
      message: 'A static code encodes its content and cannot have a targetUrl; use type "dynamic"',
    })
  }
  if (type === 'static')
    for (const issue of redirectFieldsOnStatic(input))
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: [issue.path], message: issue.message })
  if (type === 'dynamic' && !resolveTargetUrl(input)) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['targetUrl'],
      message:
        'A dynamic code needs an http(s) targetUrl (it defaults to the content only for contentType "url")',
    })
  }
})
export type CreateQrCode = z.infer<typeof CreateQrCode>
export type CreateQrCodeInput = z.input<typeof CreateQrCode>

/** Changes to a code. `type` and `contentType` never change after creation. */
export const UpdateQrCode = strictObject(
  {
    name: name.optional(),
    content: content.optional().describe('New content, validated against the code’s contentType'),
    targetUrl: targetUrl.nullable().optional().describe('New redirect destination (dynamic codes only)'),
    isActive: z.boolean().optional().describe('false pauses a dynamic code: its short link answers 410'),
    style: Style.nullable().optional(),
    externalId: ExternalId.nullable().optional().describe('Sets your key for the code; null clears it'),
    tags: Tags.optional().describe('Replaces the code’s tags; [] removes them all'),
    ...redirectFieldsShape,
  },
  {
    type: "Unknown field 'type': a code's type cannot change after creation; create a new code instead",
    contentType: "Unknown field 'contentType': a code's contentType cannot change; create a new code instead",
  },
)
export type UpdateQrCode = z.infer<typeof UpdateQrCode>

export const Assets = z
  .object({
    png: z.string().url(),
    svg: z.string().url(),
    pdf: z.string().url(),
  })
  .describe('Absolute URLs of the rendered images (authenticated GETs)')

export const QrCode = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    type: QrType,
    contentType: ContentTypeSchema,
    content: z.string(),
    targetUrl: z.string().nullable(),
    shortCode: z.string().nullable().describe('7-character base62 code of a dynamic code; null for static'),
    shortUrl: z.string().nullable().describe('The URL a dynamic code encodes; null for static'),
    style: StyleOut.nullable(),
    isActive: z.boolean(),
    totalScans: z.number().int(),
    externalId: z.string().nullable().describe('Your own key for the code; null when none was given'),
    tags: z.array(z.string()).describe('The code’s tags in code-point order; [] when none'),
    ...redirectFieldsOut,
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
    deletedAt: z
      .string()
      .datetime()
      .optional()
      .describe('When the code was deleted; only on codes listed with `deleted=true`'),
    purgeAt: z
      .string()
      .datetime()
      .optional()
      .describe('When a deleted code will be purged (deletedAt + 30 days); only with `deleted=true`'),
    assets: Assets,
  })
  .describe('A QR code')
export type QrCode = z.infer<typeof QrCode>

/** A dynamic code's short code: 7 characters of base62. */
export const ShortCode = z.string().regex(/^[0-9A-Za-z]{7}$/, 'Must be 7 characters of 0-9, A-Z, a-z')

/** A C0 control character other than tab, line feed and carriage return, or DEL. */
function hasControlCharacter(value: string): boolean {
  for (const ch of value) {
    const code = ch.codePointAt(0) ?? 0
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || code === 0x7f) return true
  }
  return false
}

/** A search: 1–200 characters, matched literally. Control characters cannot occur in a match. */
export const SearchTerm = z
  .string()
  .min(1, 'Must not be empty')
  .max(200, 'Must be at most 200 characters')
  .refine((value) => !hasControlCharacter(value), 'Must not contain control characters')

/** List orders (DESIGN §17); `-` means descending. */
export const LIST_SORTS = [
  'createdAt',
  '-createdAt',
  'updatedAt',
  '-updatedAt',
  'name',
  '-name',
  'totalScans',
  '-totalScans',
] as const
export const ListSort = z.enum(LIST_SORTS)
export type ListSort = z.infer<typeof ListSort>

export const ListQrCodesQuery = strictObject({
  ...pageQuery(),
  type: QrType.optional().describe('Only codes of this type'),
  externalId: ExternalId.optional().describe('Only the code with this externalId'),
  shortCode: ShortCode.optional().describe('Only the dynamic code with this short code'),
  deleted: QueryBoolean.optional().describe(
    'true lists deleted codes that can still be restored, newest deletion first, with deletedAt and purgeAt',
  ),
  tag: TagFilter.optional().describe(
    'Only codes with this tag; repeat it (`tag=a&tag=b`) for codes with every one',
  ),
  search: SearchTerm.optional().describe(
    'Only codes whose name, content, targetUrl, shortCode or externalId contains this text (case-insensitive; every character is literal)',
  ),
  isActive: QueryBoolean.optional().describe('Only active (true) or paused (false) codes'),
  sort: ListSort.optional().describe(
    'Order: createdAt, updatedAt, name (lower-cased, code-point order) or totalScans; `-` for descending. Default -createdAt',
  ),
})
export type ListQrCodesQuery = z.infer<typeof ListQrCodesQuery>

export const QrCodeList = z.object({
  data: z.array(QrCode),
  total: z.number().int().describe('How many codes match, over all pages'),
  limit: z.number().int(),
  offset: z.number().int(),
})
export type QrCodeList = z.infer<typeof QrCodeList>

export const BATCH_MAX = 100

/**
 * The batch body. Items are checked one by one by the server (each invalid item becomes one
 * string in `errors`), so the body schema only checks the envelope.
 */
export const BatchItem = z.custom<CreateQrCodeInput>(() => true)
export const BatchCreate = strictObject({
  codes: z
    .array(BatchItem)
    .min(1, 'A batch needs at least 1 code')
    .max(BATCH_MAX, `A batch holds at most ${BATCH_MAX} codes`)
    .describe('1–100 CreateQrCode objects'),
})
export type BatchCreate = z.infer<typeof BatchCreate>

export const BatchQuery = strictObject({
  dryRun: QueryBoolean.optional().describe('Validate every item and create nothing'),
})

export const BatchResult = z.object({
  created: z.number().int(),
  errors: z
    .array(z.string())
    .describe('One string per failed item, prefixed with its index: `codes[3].targetUrl: …`'),
  items: z.array(QrCode).describe('The created codes, in input order'),
})
export type BatchResult = z.infer<typeof BatchResult>

/** One problem of one batch item: which item, which field (`''` for the item as a whole), what. */
export interface BatchItemError {
  index: number
  field: string
  message: string
}

/** `codes[3].targetUrl: Invalid URL`: how a batch item's problem is written in `errors` (DESIGN §6). */
export function formatBatchError(error: BatchItemError): string {
  return `codes[${error.index}]${error.field ? `.${error.field}` : ''}: ${error.message}`
}

const BATCH_ERROR = /^codes\[(\d+)\](?:\.([^:]*))?:\s*(.*)$/s

/**
 * The problems one `errors` string names: one per `codes[i]…` part (an item with several
 * problems is one string, its parts joined by `; `). Empty for a string that names no item.
 * @example parseBatchErrors('codes[3].targetUrl: Invalid URL') // [{ index: 3, field: 'targetUrl', message: 'Invalid URL' }]
 */
export function parseBatchErrors(text: string): BatchItemError[] {
  return text.split(/; (?=codes\[\d+\])/).flatMap((part) => {
    const match = BATCH_ERROR.exec(part)
    return match ? [{ index: Number(match[1]), field: match[2] ?? '', message: match[3] ?? '' }] : []
  })
}

/** The message of a create whose externalId another live code holds (409, or a batch item's error). */
export function externalIdTakenMessage(existingId: string): string {
  return `This externalId is already used by QR code ${existingId}`
}

const EXTERNAL_ID_TAKEN = /already used by QR code ([0-9a-f-]{36})/

/** The id named by `externalIdTakenMessage`, or undefined for any other message. */
export function parseExternalIdTaken(message: string): string | undefined {
  return EXTERNAL_ID_TAKEN.exec(message)?.[1]
}

export const ImageQuery = strictObject({
  size: z.coerce
    .number()
    .int('Must be a whole number')
    .min(64, 'Must be 64–4096')
    .max(4096, 'Must be 64–4096')
    .default(512)
    .describe('PNG width and height in pixels (PNG only), 64–4096'),
  download: QueryBoolean.optional().describe('Adds Content-Disposition: attachment'),
})
export type ImageQuery = z.infer<typeof ImageQuery>

/**
 * An unsaved design to render: the symbol fields of a create body (DESIGN §19's live preview).
 * A dynamic code is drawn with a short link of the real length (`…/r/xxxxxxx`), since its own
 * short code is assigned when it is created; a static one with its encoded content.
 */
export const PreviewQrCode = strictObject({
  contentType: ContentTypeSchema,
  content: content.describe('The content, validated for its contentType (1–4096 bytes)'),
  type: QrType.optional().describe('Default `static`, or `dynamic` when targetUrl is given'),
  targetUrl: targetUrl.nullable().optional().describe('Accepted as in a create body; not encoded'),
  style: Style.nullable().optional(),
  size: z
    .number()
    .int('Must be a whole number')
    .min(64, 'Must be 64–1024')
    .max(1024, 'Must be 64–1024')
    .default(512)
    .describe('PNG width and height in pixels (PNG only), 64–1024'),
}).superRefine((input, ctx) => {
  const encoded = input.content.length > 0 ? encodePayload(input) : { ok: true as const }
  if (!encoded.ok) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['content'], message: encoded.message })
})
export type PreviewQrCode = z.infer<typeof PreviewQrCode>
export type PreviewQrCodeInput = z.input<typeof PreviewQrCode>
