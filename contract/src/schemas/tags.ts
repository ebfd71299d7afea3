import { z } from 'zod'

/** A code holds at most this many distinct tags (DESIGN §17). */
export const TAG_LIMIT = 20
/** A list of tags in a request may name at most this many before duplicates are dropped. */
export const TAG_INPUT_LIMIT = 100

const TAG_CHARACTERS = /^[a-z0-9 _:-]+$/

/** How every tag is compared and stored: trimmed and lower-cased. */
export function normalizeTag(raw: string): string {
  return raw.trim().toLowerCase()
}

/**
 * One tag: trimmed and lower-cased, then 1–40 characters of `a-z`, `0-9`, space, `-`, `_`, `:`.
 * @example Tag.parse(' Spring ') // 'spring'
 */
export const Tag = z
  .preprocess(
    (value) => (typeof value === 'string' ? normalizeTag(value) : value),
    z
      .string()
      .min(1, 'A tag must not be empty')
      .max(40, 'A tag is at most 40 characters')
      .refine(
        (tag) => tag.length === 0 || TAG_CHARACTERS.test(tag),
        'A tag holds only a-z, 0-9, space, -, _ and :',
      ),
  )
  .describe('A tag: trimmed and lower-cased, then 1–40 characters of a-z, 0-9, space, -, _ and :')

/** Distinct tags in code-point order (tags are ASCII, so UTF-16 order is code-point order). */
export function sortTags(tags: Iterable<string>): string[] {
  return [...new Set(tags)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}

/**
 * A set of tags: each normalised, duplicates dropped, at most 20 distinct, answered sorted.
 * @example Tags.parse(['Spring', 'menu', 'spring ']) // ['menu', 'spring']
 */
export const Tags = z
  .array(Tag)
  .max(TAG_INPUT_LIMIT, `At most ${TAG_INPUT_LIMIT} tags may be sent`)
  .transform(sortTags)
  .refine((tags) => tags.length <= TAG_LIMIT, `A code holds at most ${TAG_LIMIT} distinct tags`)
  .describe(`At most ${TAG_LIMIT} distinct tags; each is trimmed and lower-cased, duplicates are dropped`)

/** A tag and how many codes (not deleted; inactive ones included) carry it. */
/**
 * A `tag` query parameter (the code list, account analytics, the export): one tag or several
 * (`tag=a&tag=b`), normalised, meaning codes that carry every one.
 */
export const TagFilter = z
  .union([Tag, z.array(Tag).max(TAG_LIMIT, `At most ${TAG_LIMIT} tags`)])
  .transform((tags) => (Array.isArray(tags) ? [...new Set(tags)] : [tags]))

export const TagCount = z.object({
  name: z.string().describe('The tag'),
  count: z.number().int().describe('How many of your codes that are not deleted carry it'),
})
export type TagCount = z.infer<typeof TagCount>

export const TagList = z
  .object({ data: z.array(TagCount).describe('Every tag in use, by name') })
  .describe('The tags of your codes')
export type TagList = z.infer<typeof TagList>

/**
 * Splits the CSV `tags` cell of `qrctl batch` (DESIGN §17: `;`-separated); empty parts are dropped.
 * @example splitTagCell('spring; menu') // ['spring', 'menu']
 */
export function splitTagCell(cell: string): string[] {
  return cell
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
}
