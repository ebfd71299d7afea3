import type { QrCode } from '@qrctl/sdk'
import { describe, expect, it } from 'vitest'
import { type Chunk, makeChunks, outcomesOf } from './upload.js'

const code = (id: string) => ({ id }) as QrCode

describe('makeChunks', () => {
  it('cuts 100 rows per batch, keyed by the file hash and the first and last line', async () => {
    const rows = Array.from({ length: 250 }, (_, i) => ({
      line: i + 2 + (i >= 120 ? 1 : 0),
      input: { name: `c${i}`, contentType: 'text' as const, content: 'x' },
    }))
    const chunks = await makeChunks(rows, 'abcdef0123456789')
    expect(chunks.map((c) => [c.key, c.codes.length])).toEqual([
      ['batch-abcdef0123456789-2-101', 100],
      ['batch-abcdef0123456789-102-202', 100],
      ['batch-abcdef0123456789-203-252', 50],
    ])
  })
})

describe('outcomesOf', () => {
  const chunk: Chunk = { key: 'k', lines: [2, 3, 5, 6], codes: [] }

  it('pairs created items with the rows in order, skipping the indexes named in errors', () => {
    const result = {
      created: 2,
      errors: ['codes[1].targetUrl: Invalid URL', 'codes[1].name: Too long', 'codes[3]: Duplicate'],
      items: [code('a'), code('b')],
    }
    expect(outcomesOf(chunk, result)).toEqual([
      { line: 2, ok: true, code: code('a') },
      { line: 3, ok: false, errors: ['targetUrl: Invalid URL', 'name: Too long'] },
      { line: 5, ok: true, code: code('b') },
      { line: 6, ok: false, errors: ['Duplicate'] },
    ])
  })

  it('marks rows without an item as failed, with any error that names no index', () => {
    const outcomes = outcomesOf(chunk, { created: 0, errors: ['something broke'], items: [] })
    expect(outcomes.every((o) => !o.ok && o.errors[0] === 'something broke')).toBe(true)
  })
})
