import { STYLE_DEFAULTS } from '@qrctl/contract'
import { describe, expect, it } from 'vitest'
import { normalizeStyle } from '../src/index.js'

describe('normalizeStyle', () => {
  it('fills the contract’s defaults and spells colours as upper-case #RRGGBB', () => {
    expect(normalizeStyle(null)).toEqual({ ...STYLE_DEFAULTS })
    expect(normalizeStyle({ foregroundColor: '#1a2', margin: 0 })).toEqual({
      ...STYLE_DEFAULTS,
      foregroundColor: '#11AA22',
      margin: 0,
    })
  })

  it.each([
    [{ foregroundColor: 'red' }, 'foregroundColor'],
    [{ errorCorrectionLevel: 'X' }, 'errorCorrectionLevel'],
    [{ margin: 17 }, 'margin'],
    [{ margin: 1.5 }, 'margin'],
  ])('throws on %j, naming the field, as the Style schema would reject it', (style, field) => {
    expect(() => normalizeStyle(style as never)).toThrow(new RegExp(`^Invalid style: ${field}: `))
  })
})
