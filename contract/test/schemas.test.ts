import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import {
  AnalyticsQuery,
  BATCH_MAX,
  BatchCreate,
  BatchQuery,
  CreateApiKey,
  CreateQrCode,
  CreateShowcase,
  CustomColors,
  contrastRatio,
  ImageQuery,
  type Issue,
  ListQrCodesQuery,
  ListShowcasesQuery,
  RotateApiKey,
  resolveTargetUrl,
  resolveType,
  Slug,
  STYLE_DEFAULTS,
  Style,
  toIssues,
  UpdateQrCode,
  UpdateShowcase,
} from '../src/index.js'

const CODE_ID = '3f2b8c1e-9d4a-4b7e-8c2f-1a6d5e4b3c2a'

/** The issues of an input the schema must reject, as `toIssues` reports them. */
function issuesOf(schema: z.ZodTypeAny, input: unknown): Issue[] {
  const result = schema.safeParse(input)
  if (result.success) throw new Error(`expected ${JSON.stringify(input)} to be rejected`)
  return toIssues(result.error)
}

/** The parsed value of an input the schema must accept. */
function parsed<T extends z.ZodTypeAny>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input)
  if (!result.success) throw new Error(`expected success, got ${JSON.stringify(toIssues(result.error))}`)
  return result.data
}

const code = (fields: Record<string, unknown> = {}) => ({
  name: 'Spring menu',
  contentType: 'url',
  content: 'https://example.com/menu',
  ...fields,
})

describe('CreateQrCode type rules', () => {
  it('keeps a code without type or targetUrl static', () => {
    const input = parsed(CreateQrCode, code())
    expect(input.type).toBeUndefined()
    expect(resolveType(input)).toBe('static')
  })

  it('makes a code with a targetUrl and no type dynamic', () => {
    const input = parsed(
      CreateQrCode,
      code({ contentType: 'text', content: 'Table 4', targetUrl: 'https://example.com/t/4' }),
    )
    expect(resolveType(input)).toBe('dynamic')
    expect(resolveTargetUrl(input)).toBe('https://example.com/t/4')
  })

  it('keeps a null targetUrl static', () => {
    expect(resolveType(parsed(CreateQrCode, code({ targetUrl: null })))).toBe('static')
  })

  it('honours an explicit type over the targetUrl rule', () => {
    expect(resolveType({ type: 'dynamic' })).toBe('dynamic')
    expect(resolveType({ type: 'static', targetUrl: null })).toBe('static')
    expect(resolveType({ type: 'dynamic', targetUrl: 'https://example.com' })).toBe('dynamic')
  })

  it('refuses a static code with a targetUrl, on targetUrl', () => {
    const issues = issuesOf(CreateQrCode, code({ type: 'static', targetUrl: 'https://example.com/other' }))
    expect(issues).toEqual([
      {
        path: 'targetUrl',
        message: 'A static code encodes its content and cannot have a targetUrl; use type "dynamic"',
      },
    ])
  })

  it('refuses a dynamic non-url code without a targetUrl', () => {
    const issues = issuesOf(CreateQrCode, code({ type: 'dynamic', contentType: 'text', content: 'hello' }))
    expect(issues).toHaveLength(1)
    expect(issues[0]?.path).toBe('targetUrl')
    expect(issues[0]?.message).toMatch(/dynamic code needs an http\(s\) targetUrl/)
  })

  it('defaults the target of a dynamic url code to its content', () => {
    const input = parsed(CreateQrCode, code({ type: 'dynamic' }))
    expect(resolveType(input)).toBe('dynamic')
    expect(resolveTargetUrl(input)).toBe('https://example.com/menu')
  })

  it('prefers the given targetUrl over url content', () => {
    const input = parsed(CreateQrCode, code({ type: 'dynamic', targetUrl: 'https://example.com/spring' }))
    expect(resolveTargetUrl(input)).toBe('https://example.com/spring')
    expect(resolveTargetUrl({ contentType: 'text', content: 'hi' })).toBeNull()
  })

  it.each(['ftp://example.com/x', 'javascript:alert(1)', '/relative', 'https://exa mple.com'])(
    'refuses the targetUrl %j',
    (targetUrl) => {
      expect(issuesOf(CreateQrCode, code({ type: 'dynamic', targetUrl }))).toContainEqual({
        path: 'targetUrl',
        message: 'Must be an absolute http:// or https:// URL',
      })
    },
  )

  it('refuses a targetUrl over 2048 characters', () => {
    const targetUrl = `https://example.com/${'a'.repeat(2029)}`
    expect(targetUrl).toHaveLength(2049)
    expect(issuesOf(CreateQrCode, code({ targetUrl }))).toContainEqual({
      path: 'targetUrl',
      message: 'Must be at most 2048 characters',
    })
    expect(resolveType(parsed(CreateQrCode, code({ targetUrl: targetUrl.slice(0, 2048) })))).toBe('dynamic')
  })
})

describe('CreateQrCode fields', () => {
  it('names targetUrl when target_url is sent', () => {
    expect(issuesOf(CreateQrCode, code({ target_url: 'https://example.com' }))).toEqual([
      { path: '', message: "Unknown field 'target_url': did you mean 'targetUrl'?" },
    ])
  })

  it('names contentType when content_type is sent', () => {
    const { contentType: _, ...rest } = code()
    const issues = issuesOf(CreateQrCode, { ...rest, content_type: 'url' })
    expect(issues.map((issue) => issue.message)).toContain(
      "Unknown field 'content_type': did you mean 'contentType'?",
    )
  })

  it('rejects unknown keys', () => {
    expect(issuesOf(CreateQrCode, code({ colour: 'red' }))).toEqual([
      { path: '', message: "Unknown field 'colour'" },
    ])
  })

  it('explains that short codes are assigned', () => {
    expect(issuesOf(CreateQrCode, code({ shortCode: 'abc1234' }))[0]?.message).toMatch(
      /short codes are assigned by the service/,
    )
  })

  it('needs name, contentType and content', () => {
    const paths = issuesOf(CreateQrCode, {}).map((issue) => issue.path)
    expect(paths).toEqual(expect.arrayContaining(['name', 'contentType', 'content']))
  })

  it('rejects an unknown contentType', () => {
    expect(issuesOf(CreateQrCode, code({ contentType: 'pdf' }))[0]?.path).toBe('contentType')
  })

  it('accepts names of 1 and 200 characters', () => {
    expect(parsed(CreateQrCode, code({ name: 'a' })).name).toBe('a')
    expect(parsed(CreateQrCode, code({ name: 'n'.repeat(200) })).name).toHaveLength(200)
  })

  it('rejects an empty name and one of 201 characters', () => {
    expect(issuesOf(CreateQrCode, code({ name: '' }))).toEqual([
      { path: 'name', message: 'Must not be empty' },
    ])
    expect(issuesOf(CreateQrCode, code({ name: 'n'.repeat(201) }))).toEqual([
      { path: 'name', message: 'Must be at most 200 characters' },
    ])
  })

  it('validates content for its contentType, on content', () => {
    expect(issuesOf(CreateQrCode, code({ content: 'not a url' }))).toEqual([
      { path: 'content', message: 'url content must be an absolute http:// or https:// URL' },
    ])
    expect(issuesOf(CreateQrCode, code({ contentType: 'email', content: 'nobody' }))).toEqual([
      { path: 'content', message: 'email content must be an address such as name@example.com' },
    ])
  })

  it('counts content in UTF-8 bytes, up to 4096', () => {
    const text = (content: string) => code({ contentType: 'text', content })
    expect(parsed(CreateQrCode, text('a'.repeat(4096))).content).toHaveLength(4096)
    expect(parsed(CreateQrCode, text('é'.repeat(2048))).content).toHaveLength(2048)
    const tooLong = [text('a'.repeat(4097)), text('é'.repeat(2049)), text('😀'.repeat(1025))]
    for (const input of tooLong) {
      expect(input.content.length).toBeLessThanOrEqual(4097)
      expect(issuesOf(CreateQrCode, input)).toEqual([
        { path: 'content', message: 'Must be at most 4096 bytes' },
      ])
    }
  })

  it('rejects empty content', () => {
    expect(issuesOf(CreateQrCode, code({ contentType: 'text', content: '' }))).toContainEqual({
      path: 'content',
      message: 'Must not be empty',
    })
  })
})

describe('Style', () => {
  it('accepts no style, an empty style and the defaults', () => {
    expect(parsed(CreateQrCode, code({ style: null })).style).toBeNull()
    expect(parsed(Style, {})).toEqual({})
    expect(parsed(Style, STYLE_DEFAULTS)).toEqual(STYLE_DEFAULTS)
  })

  it('accepts #RGB and #RRGGBB in either case', () => {
    expect(parsed(Style, { foregroundColor: '#123', backgroundColor: '#fff' })).toEqual({
      foregroundColor: '#123',
      backgroundColor: '#fff',
    })
    expect(parsed(Style, { foregroundColor: '#1a1A2e', backgroundColor: '#FFFFFF' }).foregroundColor).toBe(
      '#1a1A2e',
    )
  })

  it.each(['black', '#12', '#1234', '#12345', '#GGGGGG', '000000', '#0000000'])(
    'rejects the colour %j',
    (colour) => {
      expect(issuesOf(Style, { foregroundColor: colour })).toContainEqual({
        path: 'foregroundColor',
        message: 'Expected a colour as #RGB or #RRGGBB',
      })
    },
  )

  it('accepts margins 0 to 16', () => {
    expect(parsed(Style, { margin: 0 }).margin).toBe(0)
    expect(parsed(Style, { margin: 16 }).margin).toBe(16)
  })

  it.each([-1, 17, 2.5])('rejects the margin %d', (margin) => {
    const issues = issuesOf(Style, { margin })
    expect(issues).toHaveLength(1)
    expect(issues[0]?.path).toBe('margin')
  })

  it('rejects a margin sent as a string', () => {
    expect(issuesOf(Style, { margin: '4' })[0]?.path).toBe('margin')
  })

  it('accepts L, M, Q and H and nothing else', () => {
    for (const level of ['L', 'M', 'Q', 'H'])
      expect(parsed(Style, { errorCorrectionLevel: level })).toBeTruthy()
    expect(issuesOf(Style, { errorCorrectionLevel: 'X' })[0]?.path).toBe('errorCorrectionLevel')
  })

  it('rejects unknown keys', () => {
    expect(issuesOf(Style, { shape: 'rounded' })).toEqual([{ path: '', message: "Unknown field 'shape'" }])
    expect(issuesOf(Style, { foreground_color: '#000' })[0]?.message).toBe(
      "Unknown field 'foreground_color': did you mean 'foregroundColor'?",
    )
  })

  it('rejects a contrast below 3:1 and accepts one just above', () => {
    expect(contrastRatio('#959595', '#FFFFFF')).toBeLessThan(3)
    expect(contrastRatio('#949494', '#FFFFFF')).toBeGreaterThan(3)
    expect(issuesOf(Style, { foregroundColor: '#959595' })).toEqual([
      {
        path: 'foregroundColor',
        message: 'Contrast between #959595 and #FFFFFF is 2.99:1; scanners need at least 3:1',
      },
    ])
    expect(parsed(Style, { foregroundColor: '#949494' })).toEqual({ foregroundColor: '#949494' })
  })

  it('rejects equal colours', () => {
    expect(issuesOf(Style, { foregroundColor: '#336699', backgroundColor: '#336699' })[0]?.message).toMatch(
      /is 1\.00:1/,
    )
  })

  it('checks contrast against the default colours', () => {
    expect(issuesOf(Style, { backgroundColor: '#333333' })[0]?.message).toMatch(/#000000 and #333333/)
  })

  it('rejects a light foreground on a dark background', () => {
    expect(issuesOf(Style, { foregroundColor: '#FFFFFF', backgroundColor: '#000000' })).toEqual([
      {
        path: 'foregroundColor',
        message:
          'Foreground #FFFFFF is lighter than background #000000; many scanners cannot read inverted codes',
      },
    ])
  })

  it('reports a style issue under style. in a create request', () => {
    expect(issuesOf(CreateQrCode, code({ style: { margin: 20 } }))).toEqual([
      { path: 'style.margin', message: 'Must be 0–16' },
    ])
  })
})

describe('UpdateQrCode', () => {
  it('accepts an empty update and every field', () => {
    expect(parsed(UpdateQrCode, {})).toEqual({})
    const all = {
      name: 'New',
      content: 'https://example.com',
      targetUrl: null,
      isActive: false,
      style: { margin: 2 },
    }
    expect(parsed(UpdateQrCode, all)).toEqual(all)
  })

  it('rejects type with a message that it cannot change', () => {
    expect(issuesOf(UpdateQrCode, { type: 'dynamic' })).toEqual([
      {
        path: '',
        message:
          "Unknown field 'type': a code's type cannot change after creation; create a new code instead",
      },
    ])
  })

  it('rejects contentType with a message that it cannot change', () => {
    expect(issuesOf(UpdateQrCode, { contentType: 'text' })[0]?.message).toMatch(/contentType cannot change/)
  })

  it('names targetUrl when target_url is sent', () => {
    expect(issuesOf(UpdateQrCode, { target_url: 'https://example.com' })[0]?.message).toBe(
      "Unknown field 'target_url': did you mean 'targetUrl'?",
    )
  })

  it('checks field rules', () => {
    expect(issuesOf(UpdateQrCode, { isActive: 'no' })[0]?.path).toBe('isActive')
    expect(issuesOf(UpdateQrCode, { name: '' })).toEqual([{ path: 'name', message: 'Must not be empty' }])
    expect(issuesOf(UpdateQrCode, { targetUrl: 'ftp://x.example' })[0]?.path).toBe('targetUrl')
    expect(issuesOf(UpdateQrCode, { content: 'é'.repeat(2049) })).toEqual([
      { path: 'content', message: 'Must be at most 4096 bytes' },
    ])
  })
})

describe('BatchCreate', () => {
  const items = (count: number) => Array.from({ length: count }, (_, i) => code({ name: `Code ${i}` }))

  it('holds 1 to 100 codes', () => {
    expect(BATCH_MAX).toBe(100)
    expect(parsed(BatchCreate, { codes: items(1) }).codes).toHaveLength(1)
    expect(parsed(BatchCreate, { codes: items(100) }).codes).toHaveLength(100)
  })

  it('rejects 0 and 101 codes', () => {
    expect(issuesOf(BatchCreate, { codes: [] })).toEqual([
      { path: 'codes', message: 'A batch needs at least 1 code' },
    ])
    expect(issuesOf(BatchCreate, { codes: items(101) })).toEqual([
      { path: 'codes', message: 'A batch holds at most 100 codes' },
    ])
  })

  it('rejects a body that is not { codes: [...] }', () => {
    expect(issuesOf(BatchCreate, {})[0]?.path).toBe('codes')
    expect(issuesOf(BatchCreate, { codes: code() })[0]?.path).toBe('codes')
    expect(issuesOf(BatchCreate, { codes: items(1), extra: true })[0]?.message).toBe("Unknown field 'extra'")
  })

  it('leaves item validation to the server, item by item', () => {
    expect(parsed(BatchCreate, { codes: [{ name: '' }, code()] }).codes).toHaveLength(2)
  })
})

describe('Slug', () => {
  it.each(['abc', 'cafe-aurora', 'a1-b2-c3', '123', 'a--b', 's'.repeat(64)])('accepts %j', (slug) => {
    expect(parsed(Slug, slug)).toBe(slug)
  })

  it.each([
    ['too short', 'ab', 'Must be 3–64 characters'],
    ['too long', 's'.repeat(65), 'Must be 3–64 characters'],
    ['a leading dash', '-abc', 'Use a-z, 0-9 and -, not starting or ending with -'],
    ['a trailing dash', 'abc-', 'Use a-z, 0-9 and -, not starting or ending with -'],
    ['capitals', 'Cafe', 'Use a-z, 0-9 and -, not starting or ending with -'],
    ['an accent', 'café', 'Use a-z, 0-9 and -, not starting or ending with -'],
    ['an underscore', 'a_b', 'Use a-z, 0-9 and -, not starting or ending with -'],
    ['a space', 'a b', 'Use a-z, 0-9 and -, not starting or ending with -'],
    ['a slash', 'a/b', 'Use a-z, 0-9 and -, not starting or ending with -'],
  ])('rejects %s', (_, slug, message) => {
    expect(issuesOf(Slug, slug)).toContainEqual({ path: '', message })
  })
})

describe('CreateShowcase', () => {
  const showcase = (fields: Record<string, unknown> = {}) => ({
    qrCodeId: CODE_ID,
    title: 'Café Aurora',
    ...fields,
  })

  it('fills in template and showBranding', () => {
    expect(parsed(CreateShowcase, showcase())).toEqual({
      qrCodeId: CODE_ID,
      title: 'Café Aurora',
      template: 'minimal',
      showBranding: true,
    })
  })

  it('accepts every documented field', () => {
    const full = showcase({
      description: null,
      slug: 'cafe-aurora',
      template: 'dark',
      customColors: { primary: '#0F766E', text: '#FFFFFF', background: '#111111' },
      customBackgroundUrl: 'https://example.com/bg.jpg',
      logoUrl: null,
      showBranding: false,
    })
    expect(parsed(CreateShowcase, full)).toEqual(full)
  })

  it.each(['socialLinks', 'ctaButtons'])('refuses %s and points to PATCH', (field) => {
    const issues = issuesOf(CreateShowcase, showcase({ [field]: [] }))
    expect(issues).toEqual([
      {
        path: '',
        message: `Unknown field '${field}': ${field} cannot be set when creating a showcase; add them with PATCH /showcases/{id}`,
      },
    ])
  })

  it('checks qrCodeId, title, slug and template', () => {
    expect(issuesOf(CreateShowcase, showcase({ qrCodeId: '42' }))).toEqual([
      { path: 'qrCodeId', message: 'Must be a UUID' },
    ])
    expect(issuesOf(CreateShowcase, showcase({ title: '' }))[0]?.path).toBe('title')
    expect(issuesOf(CreateShowcase, showcase({ slug: 'No Spaces' }))[0]?.path).toBe('slug')
    expect(issuesOf(CreateShowcase, showcase({ template: 'neon' }))[0]?.path).toBe('template')
    expect(issuesOf(CreateShowcase, { title: 'x' })[0]?.path).toBe('qrCodeId')
  })

  it('takes only http(s) URLs for the background and logo', () => {
    expect(issuesOf(CreateShowcase, showcase({ customBackgroundUrl: 'javascript:alert(1)' }))).toEqual([
      { path: 'customBackgroundUrl', message: 'Must be an absolute http:// or https:// URL' },
    ])
    expect(issuesOf(CreateShowcase, showcase({ logoUrl: 'data:image/png;base64,AAAA' }))[0]?.path).toBe(
      'logoUrl',
    )
  })
})

describe('UpdateShowcase', () => {
  const link = (i: number) => ({ platform: `site${i}`, url: `https://example.com/${i}` })
  const button = (i: number) => ({ label: `Button ${i}`, url: `https://example.com/b/${i}` })

  it('accepts up to 10 social links and 5 buttons', () => {
    const update = {
      socialLinks: Array.from({ length: 10 }, (_, i) => link(i)),
      ctaButtons: Array.from({ length: 5 }, (_, i) => button(i)),
    }
    expect(parsed(UpdateShowcase, update)).toEqual(update)
    expect(parsed(UpdateShowcase, { socialLinks: null, ctaButtons: [] })).toEqual({
      socialLinks: null,
      ctaButtons: [],
    })
  })

  it('rejects 11 social links and 6 buttons', () => {
    expect(issuesOf(UpdateShowcase, { socialLinks: Array.from({ length: 11 }, (_, i) => link(i)) })).toEqual([
      { path: 'socialLinks', message: 'At most 10 social links' },
    ])
    expect(issuesOf(UpdateShowcase, { ctaButtons: Array.from({ length: 6 }, (_, i) => button(i)) })).toEqual([
      { path: 'ctaButtons', message: 'At most 5 buttons' },
    ])
  })

  it('limits a button label to 40 characters', () => {
    expect(
      parsed(UpdateShowcase, { ctaButtons: [{ label: 'l'.repeat(40), url: 'https://example.com' }] }),
    ).toBeTruthy()
    expect(
      issuesOf(UpdateShowcase, { ctaButtons: [{ label: 'l'.repeat(41), url: 'https://example.com' }] }),
    ).toEqual([{ path: 'ctaButtons.0.label', message: 'Must be at most 40 characters' }])
    expect(
      issuesOf(UpdateShowcase, { ctaButtons: [{ label: '', url: 'https://example.com' }] })[0]?.path,
    ).toBe('ctaButtons.0.label')
  })

  it.each(['javascript:alert(1)', 'ftp://example.com', '//example.com', 'example.com'])(
    'rejects the link URL %j',
    (url) => {
      expect(issuesOf(UpdateShowcase, { socialLinks: [link(0), { platform: 'x', url }] })).toEqual([
        { path: 'socialLinks.1.url', message: 'Must be an absolute http:// or https:// URL' },
      ])
      expect(issuesOf(UpdateShowcase, { ctaButtons: [{ label: 'Go', url }] })).toEqual([
        {
          path: 'ctaButtons.0.url',
          message: 'Must be an absolute http:// or https:// URL, or a tel:, mailto: or sms: link',
        },
      ])
    },
  )

  it.each([
    'tel:+4930123456',
    'tel:030-123.456',
    'mailto:hi@example.com',
    'mailto:hi@example.com?subject=Table',
    'sms:+4930123456',
    'sms:+4930123456?body=Hello',
  ])('accepts the CTA link %j (DESIGN §9), but not as a social link', (url) => {
    expect(parsed(UpdateShowcase, { ctaButtons: [{ label: 'Call', url }] }).ctaButtons).toEqual([
      { label: 'Call', url },
    ])
    expect(issuesOf(UpdateShowcase, { socialLinks: [{ platform: 'x', url }] })[0]?.path).toBe(
      'socialLinks.0.url',
    )
  })

  it.each([
    'tel:',
    'tel:call me',
    'tel:+49 30',
    'mailto:nobody',
    'sms:abc',
    'sms:+49\n1',
    'tel:javascript:alert(1)',
  ])('rejects the CTA link %j', (url) => {
    expect(issuesOf(UpdateShowcase, { ctaButtons: [{ label: 'Go', url }] })[0]?.path).toBe('ctaButtons.0.url')
  })

  it('rejects unknown keys inside links and buttons', () => {
    expect(issuesOf(UpdateShowcase, { socialLinks: [{ ...link(0), icon: 'x' }] })).toEqual([
      { path: 'socialLinks.0', message: "Unknown field 'icon'" },
    ])
  })

  it('accepts isActive and refuses qrCodeId', () => {
    expect(parsed(UpdateShowcase, { isActive: false })).toEqual({ isActive: false })
    expect(issuesOf(UpdateShowcase, { qrCodeId: CODE_ID })[0]?.message).toBe("Unknown field 'qrCodeId'")
  })
})

describe('CustomColors', () => {
  it('accepts partial colours', () => {
    expect(parsed(CustomColors, { primary: '#0F766E' })).toEqual({ primary: '#0F766E' })
    expect(parsed(CustomColors, { text: '#777777' })).toEqual({ text: '#777777' })
  })

  it('needs AA contrast (4.5:1) between text and background', () => {
    expect(contrastRatio('#767676', '#FFFFFF')).toBeGreaterThan(4.5)
    expect(contrastRatio('#777777', '#FFFFFF')).toBeLessThan(4.5)
    expect(parsed(CustomColors, { text: '#767676', background: '#FFFFFF' })).toBeTruthy()
    expect(parsed(CustomColors, { text: '#FFFFFF', background: '#111111' })).toBeTruthy()
    expect(issuesOf(CustomColors, { text: '#777777', background: '#FFFFFF' })).toEqual([
      {
        path: 'text',
        message: 'Text #777777 on #FFFFFF is below the 4.5:1 contrast people need to read it',
      },
    ])
  })

  it('reports the contrast issue under customColors in a showcase update', () => {
    expect(issuesOf(UpdateShowcase, { customColors: { text: '#888', background: '#999' } })[0]?.path).toBe(
      'customColors.text',
    )
  })

  it('rejects bad colours and unknown keys', () => {
    expect(issuesOf(CustomColors, { primary: 'teal' })[0]?.path).toBe('primary')
    expect(issuesOf(CustomColors, { accent: '#000' })).toEqual([
      { path: '', message: "Unknown field 'accent'" },
    ])
  })
})

describe('API key schemas', () => {
  it('creates read_write keys by default', () => {
    expect(parsed(CreateApiKey, { name: 'ci' })).toEqual({ name: 'ci', scope: 'read_write' })
    expect(parsed(CreateApiKey, { name: 'ci', environment: 'staging-eu_1.0', scope: 'read' })).toEqual({
      name: 'ci',
      environment: 'staging-eu_1.0',
      scope: 'read',
    })
  })

  it('bounds name and environment', () => {
    expect(parsed(CreateApiKey, { name: 'n'.repeat(100) }).name).toHaveLength(100)
    expect(issuesOf(CreateApiKey, { name: '' })).toEqual([{ path: 'name', message: 'Must not be empty' }])
    expect(issuesOf(CreateApiKey, { name: 'n'.repeat(101) })).toEqual([
      { path: 'name', message: 'Must be at most 100 characters' },
    ])
    expect(parsed(CreateApiKey, { name: 'x', environment: 'e'.repeat(50) }).environment).toHaveLength(50)
    expect(issuesOf(CreateApiKey, { name: 'x', environment: 'e'.repeat(51) })[0]?.message).toBe(
      'Must be at most 50 characters',
    )
    expect(issuesOf(CreateApiKey, { name: 'x', environment: 'prod eu' })).toEqual([
      { path: 'environment', message: 'Use letters, digits, _, . and -' },
    ])
  })

  it('knows only read, write and read_write scopes', () => {
    expect(parsed(CreateApiKey, { name: 'x', scope: 'write' }).scope).toBe('write')
    expect(issuesOf(CreateApiKey, { name: 'x', scope: 'admin' })[0]?.path).toBe('scope')
  })

  it('rotates with a grace period of 0 to 86400 seconds', () => {
    expect(parsed(RotateApiKey, {})).toEqual({ gracePeriodSeconds: 0 })
    expect(parsed(RotateApiKey, { gracePeriodSeconds: 86_400 })).toEqual({ gracePeriodSeconds: 86_400 })
    for (const gracePeriodSeconds of [-1, 86_401]) {
      expect(issuesOf(RotateApiKey, { gracePeriodSeconds })).toEqual([
        { path: 'gracePeriodSeconds', message: 'Must be 0–86400' },
      ])
    }
    expect(issuesOf(RotateApiKey, { gracePeriodSeconds: 1.5 })[0]?.message).toBe('Must be a whole number')
    expect(issuesOf(RotateApiKey, { gracePeriodSeconds: '60' })[0]?.path).toBe('gracePeriodSeconds')
    expect(issuesOf(RotateApiKey, { grace_period_seconds: 60 })[0]?.message).toBe(
      "Unknown field 'grace_period_seconds': did you mean 'gracePeriodSeconds'?",
    )
  })
})

describe('query schemas', () => {
  it('pages QR codes 50 at a time from offset 0 by default', () => {
    expect(parsed(ListQrCodesQuery, {})).toEqual({ limit: 50, offset: 0 })
    expect(parsed(ListShowcasesQuery, {})).toEqual({ limit: 50, offset: 0 })
  })

  it('coerces limit and offset from query strings', () => {
    expect(parsed(ListQrCodesQuery, { limit: '10', offset: '20', type: 'dynamic' })).toEqual({
      limit: 10,
      offset: 20,
      type: 'dynamic',
    })
    expect(parsed(ListQrCodesQuery, { limit: '1' }).limit).toBe(1)
    expect(parsed(ListQrCodesQuery, { limit: '100' }).limit).toBe(100)
  })

  it.each([
    ['0', 'Must be at least 1'],
    ['101', 'Must be at most 100'],
    ['2.5', 'Must be a whole number'],
  ])('rejects limit=%s', (limit, message) => {
    expect(issuesOf(ListQrCodesQuery, { limit })).toEqual([{ path: 'limit', message }])
  })

  it('rejects a limit that is not a number, a negative offset, an unknown type and unknown keys', () => {
    expect(issuesOf(ListQrCodesQuery, { limit: 'ten' })[0]?.path).toBe('limit')
    expect(issuesOf(ListQrCodesQuery, { offset: '-1' })).toEqual([
      { path: 'offset', message: 'Must be 0 or more' },
    ])
    expect(issuesOf(ListQrCodesQuery, { type: 'animated' })[0]?.path).toBe('type')
    expect(issuesOf(ListQrCodesQuery, { page: '2' })).toEqual([{ path: '', message: "Unknown field 'page'" }])
  })

  it('filters showcases by a code id', () => {
    expect(parsed(ListShowcasesQuery, { qrCodeId: CODE_ID }).qrCodeId).toBe(CODE_ID)
    expect(issuesOf(ListShowcasesQuery, { qrCodeId: 'abc' })[0]?.path).toBe('qrCodeId')
  })

  it.each([
    ['true', true],
    ['false', false],
    ['1', true],
    ['0', false],
    [true, true],
    [false, false],
  ])('reads dryRun=%s as %s', (dryRun, expected) => {
    expect(parsed(BatchQuery, { dryRun }).dryRun).toBe(expected)
  })

  it('leaves dryRun unset when absent and rejects other words', () => {
    expect(parsed(BatchQuery, {}).dryRun).toBeUndefined()
    expect(issuesOf(BatchQuery, { dryRun: 'yes' })[0]?.path).toBe('dryRun')
    expect(issuesOf(BatchQuery, { dryRun: 'TRUE' })[0]?.path).toBe('dryRun')
  })

  it('knows four periods (the server applies 30d when no window is given)', () => {
    expect(parsed(AnalyticsQuery, {})).toEqual({})
    for (const period of ['7d', '30d', '90d', 'all'])
      expect(parsed(AnalyticsQuery, { period }).period).toBe(period)
    expect(issuesOf(AnalyticsQuery, { period: '1y' })[0]?.path).toBe('period')
    expect(issuesOf(AnalyticsQuery, { since: '2026-01-01' })[0]?.message).toBe("Unknown field 'since'")
  })

  it('takes windows as calendar dates and zones Intl knows (DESIGN §16)', () => {
    expect(
      parsed(AnalyticsQuery, { from: '2026-02-28', to: '2026-03-01', timezone: 'Asia/Kathmandu' }),
    ).toEqual({
      from: '2026-02-28',
      to: '2026-03-01',
      timezone: 'Asia/Kathmandu',
    })
    expect(issuesOf(AnalyticsQuery, { from: '2026-02-30' })[0]).toEqual({
      path: 'from',
      message: 'Not a calendar date',
    })
    expect(issuesOf(AnalyticsQuery, { to: '1.3.2026' })[0]?.path).toBe('to')
    expect(issuesOf(AnalyticsQuery, { from: '0001-01-01' })[0]).toEqual({
      path: 'from',
      message: 'Must be between 2000-01-01 and 2999-12-31',
    })
    expect(issuesOf(AnalyticsQuery, { timezone: 'Mars/Olympus' })[0]?.path).toBe('timezone')
    expect(issuesOf(AnalyticsQuery, { compare: 'last-year' })[0]?.path).toBe('compare')
  })

  it('sizes PNGs from 64 to 4096 pixels, 512 by default', () => {
    expect(parsed(ImageQuery, {})).toEqual({ size: 512 })
    expect(parsed(ImageQuery, { size: '64', download: '1' })).toEqual({ size: 64, download: true })
    expect(parsed(ImageQuery, { size: '4096' }).size).toBe(4096)
    expect(issuesOf(ImageQuery, { size: '63' })).toEqual([{ path: 'size', message: 'Must be 64–4096' }])
    expect(issuesOf(ImageQuery, { size: '4097' })).toEqual([{ path: 'size', message: 'Must be 64–4096' }])
  })
})

describe('toIssues', () => {
  it('joins nested paths with dots', () => {
    const issues = issuesOf(UpdateShowcase, {
      customColors: { primary: 'nope' },
      socialLinks: [
        { platform: 'instagram', url: 'https://instagram.com/cafe' },
        { platform: '', url: 'https://example.com' },
      ],
    })
    expect(issues).toEqual([
      { path: 'customColors.primary', message: 'Expected a colour as #RGB or #RRGGBB' },
      { path: 'socialLinks.1.platform', message: 'Must not be empty' },
    ])
  })

  it('gives the whole body an empty path', () => {
    expect(issuesOf(CreateQrCode, 'not an object')).toEqual([
      { path: '', message: 'Expected object, received string' },
    ])
  })

  it('keeps every issue, in order', () => {
    const issues = issuesOf(CreateQrCode, {
      name: '',
      contentType: 'url',
      content: 'x',
      style: { margin: -1 },
    })
    expect(issues.map((issue) => issue.path)).toEqual(['name', 'style.margin', 'content'])
  })
})
