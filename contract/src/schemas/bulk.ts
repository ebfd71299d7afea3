import { z } from 'zod'
import { strictObject, Uuid } from './common.js'
import { Tags } from './tags.js'

/** A bulk request names 1–100 codes (DESIGN §17). */
export const BULK_MAX = 100

const ids = z
  .array(Uuid)
  .min(1, 'Name at least 1 id')
  .max(BULK_MAX, `At most ${BULK_MAX} ids per request`)
  .describe(`1–${BULK_MAX} code ids; a repeated id counts once`)

/** `{ ids }`: the codes a bulk delete or restore acts on. */
export const BulkIds = strictObject({ ids })
export type BulkIds = z.infer<typeof BulkIds>

/**
 * Changes to up to 100 codes at once: `set` replaces fields, `addTags` then `removeTags`
 * change the tags each code already has.
 * @example { ids: ['…'], set: { isActive: false }, addTags: ['paused'] }
 */
export const BulkUpdate = strictObject({
  ids,
  set: strictObject({
    isActive: z.boolean().optional().describe('false pauses every code named'),
    tags: Tags.optional().describe('Replaces the tags of every code named'),
  })
    .optional()
    .describe('Fields given the same value on every code'),
  addTags: Tags.optional().describe('Tags added to every code (before removeTags)'),
  removeTags: Tags.optional().describe('Tags removed from every code (after addTags)'),
}).superRefine((body, ctx) => {
  const sets = body.set && Object.values(body.set).some((value) => value !== undefined)
  if (!sets && !body.addTags && !body.removeTags) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['set'],
      message: 'Nothing to change: give set (isActive, tags), addTags or removeTags',
    })
  }
})
export type BulkUpdate = z.infer<typeof BulkUpdate>
export type BulkUpdateInput = z.input<typeof BulkUpdate>

const errors = z
  .array(z.string())
  .describe('One string per id that was not changed for a reason: `ids[3]: not found`')

export const BulkUpdateResult = z.object({
  updated: z.number().int().describe('How many codes changed (a code already as asked is not counted)'),
  errors,
})
export type BulkUpdateResult = z.infer<typeof BulkUpdateResult>

export const BulkDeleteResult = z.object({
  deleted: z.number().int().describe('How many codes were deleted'),
  errors,
})
export type BulkDeleteResult = z.infer<typeof BulkDeleteResult>

export const BulkRestoreResult = z.object({
  restored: z.number().int().describe('How many codes were restored'),
  errors,
})
export type BulkRestoreResult = z.infer<typeof BulkRestoreResult>

/** `ids[3]: not found`: how a bulk request reports one id it did not change. */
export function formatBulkError(index: number, message: string): string {
  return `ids[${index}]: ${message}`
}
