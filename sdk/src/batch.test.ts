import { describe, expect, it } from 'vitest'
import { chunk, countFailedItems, reindexError } from './batch.js'

describe('createMany helpers', () => {
  it('splits into runs of 100', () => {
    const items = Array.from({ length: 250 }, (_, i) => i)
    expect(chunk(items).map((run) => run.length)).toEqual([100, 100, 50])
    expect(chunk([])).toEqual([])
  })

  it('moves an error index by the batch offset and leaves other text alone', () => {
    expect(reindexError('codes[3].targetUrl: Must be a URL', 200)).toBe('codes[203].targetUrl: Must be a URL')
    expect(reindexError('codes[0]: Invalid (see codes[1])', 100)).toBe('codes[100]: Invalid (see codes[1])')
    expect(reindexError('something else', 100)).toBe('something else')
  })

  it('counts failed items, not messages', () => {
    expect(countFailedItems(['codes[1].name: x', 'codes[1].content: y', 'codes[4]: z', 'odd'])).toBe(3)
  })
})
