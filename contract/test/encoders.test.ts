import { describe, expect, it } from 'vitest'
import { type ContentType, encodePayload, escapeWifi, formatWifi } from '../src/index.js'

/** The payload of a valid content; fails the test with the encoder's message otherwise. */
function payloadOf(contentType: ContentType, content: string): string {
  const result = encodePayload({ contentType, content })
  if (!result.ok)
    throw new Error(`expected ${contentType} ${JSON.stringify(content)} to encode: ${result.message}`)
  return result.payload
}

/** The message for an invalid content; fails the test when the content encodes. */
function messageOf(contentType: ContentType, content: string): string {
  const result = encodePayload({ contentType, content })
  if (result.ok) throw new Error(`expected ${contentType} ${JSON.stringify(content)} to be rejected`)
  return result.message
}

const wifiJson = (network: Record<string, unknown>) => JSON.stringify(network)

describe('url', () => {
  it.each([
    'https://example.com',
    'http://example.com/menu?table=4#top',
    'https://sub.example.co.uk:8443/a/b?q=%20x',
    'http://localhost:3000/r/aZ3kP9q',
    'HTTPS://EXAMPLE.COM/Path',
  ])('encodes %s as is', (url) => {
    expect(payloadOf('url', url)).toBe(url)
  })

  it.each([
    ['ftp', 'ftp://example.com/file.txt'],
    ['relative path', '/menu/spring'],
    ['bare host', 'example.com'],
    ['javascript', 'javascript:alert(1)'],
    ['data', 'data:text/html,<script>alert(1)</script>'],
    ['mailto', 'mailto:hi@example.com'],
    ['no host', 'https://'],
    ['no slashes', 'http:example.com'],
    ['one slash', 'https:/example.com'],
    ['leading space', ' https://example.com'],
    ['trailing space', 'https://example.com '],
    ['inner newline', 'https://exa\nmple.com/'],
    ['inner tab', 'https://example.com/\tpath'],
    ['inner space', 'https://example.com/my menu'],
    ['empty', ''],
  ])('rejects %s', (_, url) => {
    expect(messageOf('url', url)).toBe('url content must be an absolute http:// or https:// URL')
  })
})

describe('text', () => {
  it('keeps UTF-8 text with emoji byte for byte', () => {
    const text = 'Grüße aus Köln 👋🏽 — café 漢字 🇩🇪\nzweite Zeile'
    const payload = payloadOf('text', text)
    expect(payload).toBe(text)
    expect(Buffer.from(payload, 'utf8').equals(Buffer.from(text, 'utf8'))).toBe(true)
  })

  it('keeps surrounding whitespace', () => {
    expect(payloadOf('text', '  padded  ')).toBe('  padded  ')
  })

  it('rejects empty text', () => {
    expect(messageOf('text', '')).toBe('text content must not be empty')
  })
})

describe('email', () => {
  it.each([
    ['hi@example.com', 'mailto:hi@example.com'],
    ['first.last+tag@mail.example.org', 'mailto:first.last+tag@mail.example.org'],
    ['  hi@example.com  ', 'mailto:hi@example.com'],
    ['MAILTO:hi@example.com', 'mailto:hi@example.com'],
  ])('encodes %j as %s', (content, payload) => {
    expect(payloadOf('email', content)).toBe(payload)
  })

  it.each([
    'hi',
    'hi@example',
    '@example.com',
    'hi@.com',
    'hi there@example.com',
    'a@b@example.com',
    '<hi@example.com>',
    'hi@example.c',
    '',
  ])('rejects %j', (content) => {
    expect(messageOf('email', content)).toBe('email content must be an address such as name@example.com')
  })
})

describe('phone', () => {
  it.each([
    ['+1 (555) 123-4567', 'tel:+15551234567'],
    ['+49.30.1234.5678', 'tel:+493012345678'],
    ['030 1234567', 'tel:0301234567'],
    ['tel:+44 20 7946 0958', 'tel:+442079460958'],
    ['112', 'tel:112'],
  ])('encodes %j as %s', (content, payload) => {
    expect(payloadOf('phone', content)).toBe(payload)
  })

  it.each([
    ['letters', '555-CALL-NOW'],
    ['too short', '12'],
    ['too long', '+123456789012345678901'],
    ['plus inside', '49+301234567'],
    ['two plus signs', '++4930123'],
    ['empty', ''],
  ])('rejects %s', (_, content) => {
    expect(messageOf('phone', content)).toBe(
      'phone content must be a number of 3–20 digits, optionally starting with +',
    )
  })
})

describe('sms', () => {
  it('encodes a number with a message as SMSTO:number:message', () => {
    expect(payloadOf('sms', '+1 555 123-4567:Table 4 is ready')).toBe('SMSTO:+15551234567:Table 4 is ready')
  })

  it('encodes a bare number as SMSTO:number', () => {
    expect(payloadOf('sms', '+15551234567')).toBe('SMSTO:+15551234567')
  })

  it('drops an empty message', () => {
    expect(payloadOf('sms', '+15551234567:')).toBe('SMSTO:+15551234567')
  })

  it('keeps colons and emoji inside the message', () => {
    expect(payloadOf('sms', '+4930123:Meet at 10:30 ☕')).toBe('SMSTO:+4930123:Meet at 10:30 ☕')
  })

  it.each([
    ['a name instead of a number', 'mum:hello'],
    ['no number', ':hello'],
    ['empty', ''],
  ])('rejects %s', (_, content) => {
    expect(messageOf('sms', content)).toMatch(/^sms content must be `number` or `number:message`/)
  })
})

describe('wifi from a WIFI: string', () => {
  it.each([
    'WIFI:T:WPA;S:Home;P:secret123;;',
    'WIFI:T:WEP;S:Old router;P:abcde;;',
    'WIFI:T:nopass;S:Cafe Guest;;',
    'WIFI:T:WPA;S:Hidden net;P:secret123;H:true;;',
  ])('keeps the canonical %s unchanged', (content) => {
    expect(payloadOf('wifi', content)).toBe(content)
  })

  it('puts the fields in canonical order and fills in T:nopass', () => {
    expect(payloadOf('wifi', 'WIFI:P:secret123;S:Home;T:WPA;;')).toBe('WIFI:T:WPA;S:Home;P:secret123;;')
    expect(payloadOf('wifi', 'WIFI:S:Open;;')).toBe('WIFI:T:nopass;S:Open;;')
    expect(payloadOf('wifi', 'WIFI:T:WPA;S:Home;P:secret123;H:false;;')).toBe(
      'WIFI:T:WPA;S:Home;P:secret123;;',
    )
  })

  it('re-serialises an escaped string identically', () => {
    const escaped = 'WIFI:T:WPA;S:a\\\\b\\;c\\,d\\:e\\"f;P:p\\;ss\\,w\\:rd\\"\\\\1;;'
    expect(payloadOf('wifi', escaped)).toBe(escaped)
  })

  it('escapes an unescaped colon inside a value', () => {
    expect(payloadOf('wifi', 'WIFI:T:WPA;S:Home;P:ab:cd:ef;;')).toBe('WIFI:T:WPA;S:Home;P:ab\\:cd\\:ef;;')
  })

  it.each([
    ['no WIFI: prefix', 'T:WPA;S:Home;P:secret123;;', 'wifi content must start with WIFI:'],
    ['one terminating semicolon', 'WIFI:T:WPA;S:Home;P:secret123;', 'wifi content must end with ;;'],
    ['no terminator', 'WIFI:T:WPA;S:Home;P:secret123', 'wifi content must end with ;;'],
    [
      'an escaped semicolon posing as the terminator',
      'WIFI:T:WPA;S:Home;P:secret123\\;;',
      'wifi content must end with ;;',
    ],
    ['a lone backslash', 'WIFI:T:WPA;S:Home;P:secret123\\', 'wifi content ends with a lone backslash'],
    [
      'an unescaped semicolon in the ssid',
      'WIFI:T:WPA;S:My;Net;P:secret123;;',
      "wifi field 'Net' has no value",
    ],
    [
      'an unknown field',
      'WIFI:T:WPA;S:Home;P:secret123;X:1;;',
      'wifi content has unknown field(s) X; use T, S, P and H',
    ],
    ['an unknown encryption', 'WIFI:T:WPA3;S:Home;P:secret123;;', 'wifi T must be WPA, WEP or nopass'],
    ['a lowercase encryption', 'WIFI:T:wpa;S:Home;P:secret123;;', 'wifi T must be WPA, WEP or nopass'],
    ['H that is not a boolean', 'WIFI:T:WPA;S:Home;P:secret123;H:yes;;', 'wifi H must be true or false'],
    ['no ssid', 'WIFI:T:nopass;;', 'wifi ssid must be 1–32 bytes (UTF-8)'],
  ])('rejects %s', (_, content, message) => {
    expect(messageOf('wifi', content)).toBe(message)
  })
})

describe('wifi from JSON', () => {
  it('defaults to WPA when a password is given', () => {
    expect(payloadOf('wifi', wifiJson({ ssid: 'Cafe', password: 'croissant42' }))).toBe(
      'WIFI:T:WPA;S:Cafe;P:croissant42;;',
    )
  })

  it('defaults to nopass without a password', () => {
    expect(payloadOf('wifi', wifiJson({ ssid: 'Cafe Guest' }))).toBe('WIFI:T:nopass;S:Cafe Guest;;')
  })

  it('marks a hidden network', () => {
    expect(payloadOf('wifi', wifiJson({ ssid: 'Lab', password: 'secret123', hidden: true }))).toBe(
      'WIFI:T:WPA;S:Lab;P:secret123;H:true;;',
    )
  })

  it('escapes \\ ; , : and " in ssid and password', () => {
    const payload = payloadOf(
      'wifi',
      wifiJson({ ssid: 'a\\b;c,d:e"f', password: 'p;ss,w:rd"\\1', encryption: 'WPA' }),
    )
    expect(payload).toBe('WIFI:T:WPA;S:a\\\\b\\;c\\,d\\:e\\"f;P:p\\;ss\\,w\\:rd\\"\\\\1;;')
    expect(payloadOf('wifi', payload)).toBe(payload)
  })

  it('agrees with formatWifi and escapeWifi', () => {
    expect(escapeWifi('x;y')).toBe('x\\;y')
    expect(formatWifi({ ssid: 'x;y', password: 'secret123', encryption: 'WPA' })).toEqual({
      ok: true,
      payload: payloadOf('wifi', wifiJson({ ssid: 'x;y', password: 'secret123' })),
    })
  })

  it('accepts surrounding whitespace and multi-byte SSIDs up to 32 bytes', () => {
    expect(payloadOf('wifi', `  ${wifiJson({ ssid: 'Café ☕' })}\n`)).toBe('WIFI:T:nopass;S:Café ☕;;')
    expect(payloadOf('wifi', wifiJson({ ssid: 's'.repeat(32) }))).toBe(`WIFI:T:nopass;S:${'s'.repeat(32)};;`)
    expect(payloadOf('wifi', wifiJson({ ssid: '日'.repeat(10) }))).toBe(
      `WIFI:T:nopass;S:${'日'.repeat(10)};;`,
    )
  })

  it.each([
    ['an empty ssid', { ssid: '' }, 'wifi ssid must be 1–32 bytes (UTF-8)'],
    ['a 33-character ssid', { ssid: 's'.repeat(33) }, 'wifi ssid must be 1–32 bytes (UTF-8)'],
    [
      'an ssid of 11 three-byte characters',
      { ssid: '日'.repeat(11) },
      'wifi ssid must be 1–32 bytes (UTF-8)',
    ],
    ['a missing ssid', { password: 'secret123' }, 'wifi ssid must be a string'],
    ['a numeric password', { ssid: 'x', password: 12345678 }, 'wifi password must be a string'],
    ['a string hidden flag', { ssid: 'x', hidden: 'true' }, 'wifi hidden must be true or false'],
    ['an unknown key', { ssid: 'x', security: 'WPA' }, 'wifi JSON has unknown key(s) security'],
    [
      'an unknown encryption',
      { ssid: 'x', password: 'secret123', encryption: 'WPA2' },
      'wifi encryption must be WPA, WEP or nopass',
    ],
  ])('rejects %s', (_, network, message) => {
    expect(messageOf('wifi', wifiJson(network))).toBe(message)
  })

  it('rejects JSON that is not an object', () => {
    expect(messageOf('wifi', '{"ssid": ')).toMatch(/^wifi content must be a WIFI: string or a JSON object/)
    expect(messageOf('wifi', '["ssid"]')).toBe('wifi content must start with WIFI:')
  })
})

describe('wifi encryption rules', () => {
  it('WPA needs a password of 8–63 characters', () => {
    expect(messageOf('wifi', wifiJson({ ssid: 'x', encryption: 'WPA' }))).toBe(
      'wifi password is required with encryption WPA',
    )
    expect(messageOf('wifi', wifiJson({ ssid: 'x', password: '1234567' }))).toBe(
      'wifi WPA password must be 8–63 characters',
    )
    expect(messageOf('wifi', wifiJson({ ssid: 'x', password: 'p'.repeat(64) }))).toBe(
      'wifi WPA password must be 8–63 characters',
    )
    expect(payloadOf('wifi', wifiJson({ ssid: 'x', password: '12345678' }))).toBe(
      'WIFI:T:WPA;S:x;P:12345678;;',
    )
    expect(payloadOf('wifi', wifiJson({ ssid: 'x', password: 'p'.repeat(63) }))).toBe(
      `WIFI:T:WPA;S:x;P:${'p'.repeat(63)};;`,
    )
  })

  it('WEP needs a password, of any length', () => {
    expect(messageOf('wifi', 'WIFI:T:WEP;S:Old;;')).toBe('wifi password is required with encryption WEP')
    expect(payloadOf('wifi', wifiJson({ ssid: 'Old', password: 'abcde', encryption: 'WEP' }))).toBe(
      'WIFI:T:WEP;S:Old;P:abcde;;',
    )
  })

  it('nopass takes no password', () => {
    expect(messageOf('wifi', wifiJson({ ssid: 'x', password: 'secret123', encryption: 'nopass' }))).toBe(
      'wifi password given with encryption nopass',
    )
    expect(messageOf('wifi', 'WIFI:T:nopass;S:x;P:secret123;;')).toBe(
      'wifi password given with encryption nopass',
    )
  })
})

describe('vcard', () => {
  const v3 = [
    'BEGIN:VCARD',
    'VERSION:3.0',
    'N:Doe;Jane;;;',
    'FN:Jane Doe',
    'TEL;TYPE=CELL:+15551234567',
    'END:VCARD',
  ]
  const v4 = [
    'BEGIN:VCARD',
    'VERSION:4.0',
    'FN;CHARSET=UTF-8:Jürgen Ölmann',
    'EMAIL:j@example.com',
    'END:VCARD',
  ]

  it('accepts vCard 3.0 with CRLF line endings unchanged', () => {
    const content = v3.join('\r\n')
    expect(payloadOf('vcard', content)).toBe(content)
  })

  it('accepts vCard 4.0 and keeps non-ASCII names', () => {
    expect(payloadOf('vcard', v4.join('\r\n'))).toBe(v4.join('\r\n'))
  })

  it('normalises LF and CR line endings to CRLF', () => {
    expect(payloadOf('vcard', v3.join('\n'))).toBe(v3.join('\r\n'))
    expect(payloadOf('vcard', v3.join('\r'))).toBe(v3.join('\r\n'))
  })

  it('drops blank lines, trailing spaces and the final newline', () => {
    const messy = `\n${v3.slice(0, 3).join('  \n')}\n\n${v3.slice(3).join('\r\n')}\r\n`
    expect(payloadOf('vcard', messy)).toBe(v3.join('\r\n'))
  })

  it('accepts lowercase BEGIN and END', () => {
    const lower = ['begin:vcard', 'VERSION:3.0', 'FN:Jane Doe', 'end:vcard'].join('\r\n')
    expect(payloadOf('vcard', lower)).toBe(lower)
  })

  it.each([
    [
      'missing FN',
      v3.filter((line) => !line.startsWith('FN')),
      'vcard must have an FN (formatted name) line',
    ],
    [
      'N but no FN',
      ['BEGIN:VCARD', 'VERSION:4.0', 'N:Doe;Jane;;;', 'END:VCARD'],
      'vcard must have an FN (formatted name) line',
    ],
    ['version 2.1', v3.map((line) => line.replace('3.0', '2.1')), 'vcard VERSION must be 3.0 or 4.0'],
    ['no version', v3.filter((line) => !line.startsWith('VERSION')), 'vcard VERSION must be 3.0 or 4.0'],
    ['no BEGIN', v3.slice(1), 'vcard content must start with BEGIN:VCARD'],
    ['no END', v3.slice(0, -1), 'vcard content must end with END:VCARD'],
    ['plain text', ['Jane Doe', '+15551234567'], 'vcard content must start with BEGIN:VCARD'],
  ])('rejects %s', (_, lines, message) => {
    expect(messageOf('vcard', lines.join('\r\n'))).toBe(message)
  })
})

describe('messages', () => {
  it.each([
    ['url', 'nope'],
    ['text', ''],
    ['email', 'nope'],
    ['phone', 'nope'],
    ['sms', 'nope'],
    ['wifi', 'nope'],
    ['vcard', 'nope'],
  ] as const)('name the %s rule that failed', (contentType, content) => {
    expect(messageOf(contentType, content).startsWith(`${contentType} `)).toBe(true)
  })
})
