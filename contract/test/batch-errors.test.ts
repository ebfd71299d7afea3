import { describe, expect, it } from 'vitest'
import {
  externalIdTakenMessage,
  formatBatchError,
  parseBatchErrors,
  parseExternalIdTaken,
} from '../src/index.js'

const ID = '3f2b8c1e-9d4a-4b7e-8c2f-1a6d5e4b3c2a'

describe('batch item errors', () => {
  it('format as codes[i].field: message, and parse back', () => {
    const error = { index: 3, field: 'targetUrl', message: 'Must be an absolute http:// or https:// URL' }
    const text = formatBatchError(error)
    expect(text).toBe('codes[3].targetUrl: Must be an absolute http:// or https:// URL')
    expect(parseBatchErrors(text)).toEqual([error])
  })

  it('parse an item-wide error, a message holding colons and line breaks, and joined parts', () => {
    expect(parseBatchErrors('codes[0]: Expected object, received string')).toEqual([
      { index: 0, field: '', message: 'Expected object, received string' },
    ])
    expect(parseBatchErrors('codes[1].content: a: b\nc')).toEqual([
      { index: 1, field: 'content', message: 'a: b\nc' },
    ])
    expect(parseBatchErrors('codes[2].name: Too long; codes[2].style.margin: Must be 0–16')).toEqual([
      { index: 2, field: 'name', message: 'Too long' },
      { index: 2, field: 'style.margin', message: 'Must be 0–16' },
    ])
  })

  it('name no item for a string without the prefix', () => {
    expect(parseBatchErrors('something broke')).toEqual([])
  })

  it('carry the id of the code holding a taken externalId', () => {
    expect(parseExternalIdTaken(externalIdTakenMessage(ID))).toBe(ID)
    expect(parseExternalIdTaken('Must not be empty')).toBeUndefined()
  })
})
