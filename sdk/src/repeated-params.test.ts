import { describe, expect, it } from 'vitest'
import { repeatedArrayParams } from './transport.js'

describe('repeatedArrayParams', () => {
  it('turns ts-rest’s indexed array parameters into a repeated parameter', () => {
    expect(repeatedArrayParams('http://h/api/v1/qr-codes?tag%5B0%5D=a&tag%5B1%5D=b%20c&limit=5')).toBe(
      'http://h/api/v1/qr-codes?tag=a&tag=b%20c&limit=5',
    )
  })

  it('leaves a path without array parameters as it is, values that look like one included', () => {
    for (const path of [
      'http://h/api/v1/qr-codes',
      'http://h/api/v1/qr-codes?search=x%5B0%5D%3Dy&limit=5',
      'http://h/api/v1/qr-codes?search=50%25',
    ])
      expect(repeatedArrayParams(path)).toBe(path)
  })
})
