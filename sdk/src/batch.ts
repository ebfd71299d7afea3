import { BATCH_MAX } from '@qrctl/contract'

/** Splits `items` into runs of at most `size`. */
export function chunk<T>(items: readonly T[], size = BATCH_MAX): T[][] {
  const chunks: T[][] = []
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size))
  return chunks
}

const INDEX = /^codes\[(\d+)\]/

/** `codes[3]…` of the batch that starts at input index `offset` becomes `codes[offset+3]…`. */
export function reindexError(error: string, offset: number): string {
  return error.replace(INDEX, (_, index: string) => `codes[${offset + Number(index)}]`)
}

/** How many items the errors are about: one per distinct index, one per string without one. */
export function countFailedItems(errors: readonly string[]): number {
  const indexes = new Set<string>()
  let unindexed = 0
  for (const error of errors) {
    const match = INDEX.exec(error)
    if (match?.[1] === undefined) unindexed++
    else indexes.add(match[1])
  }
  return indexes.size + unindexed
}
