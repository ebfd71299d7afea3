import { z } from 'zod'

/**
 * Every error the API answers with, by its stable `error` code, and the HTTP status it carries.
 * Clients branch on the code; the status follows from it.
 */
export const ERROR_STATUS = {
  validation_error: 400,
  invalid_json: 400,
  invalid_body: 400,
  unauthorized: 401,
  plan_required: 403,
  insufficient_scope: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unscannable: 400,
  internal_error: 500,
  service_unavailable: 503,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS
export const ErrorCode = z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]])

/** One problem with the input: where (`codes.3.targetUrl`) and what. */
export const Issue = z.object({
  path: z.string().describe('Dotted path of the offending field; empty for the whole body'),
  message: z.string(),
})
export type Issue = z.infer<typeof Issue>

/** One render of the decode check (DESIGN §13): a PNG of `size` px read by `decoder`. */
export const DecodeCheck = z.object({
  size: z.number().int().describe('Width of the rendered PNG in pixels'),
  decoder: z.string().describe('The decoder that read it, e.g. `jsqr` or `zxing-cpp`'),
  ok: z.boolean().describe('Whether it decoded to the exact payload'),
})
export type DecodeCheck = z.infer<typeof DecodeCheck>

/**
 * The body of every error response (spec 2.8). `details.message` is always present and
 * written for people; the other keys depend on the code (`issues`, `retryAfter`, …).
 */
export const ErrorBody = z
  .object({
    error: z.string().describe('Stable snake_case error code, e.g. `validation_error`'),
    details: z
      .object({
        message: z.string(),
        issues: z.array(Issue).optional(),
        retryAfter: z
          .number()
          .int()
          .optional()
          .describe('Seconds to wait, with `rate_limited` and `service_unavailable`'),
        requestId: z.string().optional(),
        existingId: z
          .string()
          .optional()
          .describe('With an externalId `conflict`: the id of the code that holds that externalId'),
        checks: z
          .array(DecodeCheck)
          .optional()
          .describe(
            'With `unscannable`: each render of the decode check, by size and decoder, and whether it read',
          ),
        idempotencyKey: z.string().optional().describe('With an Idempotency-Key `conflict`: the key'),
        reason: z
          .enum(['in_progress', 'mismatch'])
          .optional()
          .describe(
            'With an Idempotency-Key `conflict`: `in_progress` (retry shortly) or `mismatch` (never retry)',
          ),
      })
      .passthrough(),
  })
  .describe('Error response')
export type ErrorBody = z.infer<typeof ErrorBody>

/** Turns zod issues into the `details.issues` list, paths dotted (`codes.3.targetUrl`). */
export function toIssues(error: z.ZodError): Issue[] {
  return error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }))
}
