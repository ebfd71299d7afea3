interface Page<T> {
  data: T[]
  total: number
}

/**
 * Every item of every page, fetched lazily one page at a time. Offset paging over a list
 * that changes meanwhile can show an item twice (a new code shifts the rest down); ids seen
 * already are skipped so each item comes out once.
 */
export async function* paginate<T extends { id: string }>(
  fetchPage: (offset: number) => Promise<Page<T>>,
  startOffset = 0,
): AsyncGenerator<T, void, undefined> {
  const seen = new Set<string>()
  let offset = startOffset
  for (;;) {
    const page = await fetchPage(offset)
    for (const item of page.data) {
      if (seen.has(item.id)) continue
      seen.add(item.id)
      yield item
    }
    offset += page.data.length
    if (page.data.length === 0 || offset >= page.total) return
  }
}
