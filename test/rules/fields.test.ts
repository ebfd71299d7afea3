import type { CreateQrCodeInput } from '@qrctl/contract'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Api,
  api,
  createCode,
  dumpDatabase,
  dynamicCode,
  expectError,
  textCode,
  UNLIMITED,
} from '../api/helpers.js'
import { dialects, startServer, type TestServer } from '../support/server.js'

const RULES = [
  { targetUrl: 'https://apps.apple.com/app/id1', conditions: [{ type: 'os', values: ['ios'] }] },
  {
    targetUrl: 'https://example.com/de',
    conditions: [
      { type: 'country', values: ['DE', 'AT'] },
      { type: 'language', values: ['de'] },
    ],
  },
]
const ALL_FIELDS = {
  rules: RULES,
  expiresAt: '2027-01-01T00:00:00+01:00',
  expiredUrl: 'https://example.com/over',
  maxScans: 500,
  afterLimitUrl: 'https://example.com/all-gone',
  password: 'open sesame',
  utm: { source: 'poster', medium: 'print', campaign: 'spring' },
  forwardQuery: true,
}
const UNSET = {
  rules: null,
  expiresAt: null,
  expiredUrl: null,
  maxScans: null,
  afterLimitUrl: null,
  hasPassword: false,
  utm: null,
  forwardQuery: false,
}

describe.each(dialects())('redirect rule fields on %s', (dialect) => {
  let server: TestServer
  let client: Api

  beforeAll(async () => {
    server = await startServer({ dialect, env: UNLIMITED })
    client = api(server, server.apiKey)
  })
  afterAll(() => server.close())

  describe('happy', () => {
    it('answers every field as unset on a plain code, static or dynamic', async () => {
      expect(await createCode(client, dynamicCode())).toMatchObject(UNSET)
      expect(await createCode(client, textCode())).toMatchObject(UNSET)
    })

    it('stores every field on create and answers them, the password as hasPassword only', async () => {
      const code = await createCode(client, dynamicCode(ALL_FIELDS as Partial<CreateQrCodeInput>))
      const { password: _password, ...rest } = ALL_FIELDS
      const expected = { ...rest, expiresAt: '2026-12-31T23:00:00.000Z', hasPassword: true }
      expect(code).toMatchObject(expected)
      expect(code).not.toHaveProperty('password')
      const read = await client.get(`/qr-codes/${code.id}`)
      expect(read.body.data).toMatchObject(expected)
      expect(read.text).not.toContain('open sesame')
      // Stored as a salted scrypt hash, never as given.
      const dump = await dumpDatabase(server)
      expect(dump).not.toContain('open sesame')
      expect(dump).toMatch(/scrypt\$32768\$8\$1\$/)
    })

    it('takes the fields in a batch, item by item', async () => {
      const res = await client.post('/qr-codes/batch', {
        codes: [
          dynamicCode({ maxScans: 3, utm: { source: 'batch' } } as Partial<CreateQrCodeInput>),
          dynamicCode({ rules: [{ targetUrl: 'x', conditions: [] }] } as Partial<CreateQrCodeInput>),
          textCode({ password: 'abcd' } as Partial<CreateQrCodeInput>),
        ],
      })
      expect(res.status, res.text).toBe(201)
      expect(res.body.data.created).toBe(1)
      expect(res.body.data.items[0]).toMatchObject({ maxScans: 3, utm: { source: 'batch' } })
      expect(res.body.data.errors).toEqual([
        expect.stringMatching(/^codes\[1\]\.rules\.0\.targetUrl: .*; codes\[1\]\.rules\.0\.conditions: /),
        expect.stringMatching(/^codes\[2\]\.password: A static code/),
      ])
    })

    it('changes fields by PATCH, null clears each, [] rules and {} utm are stored as null', async () => {
      const code = await createCode(client, dynamicCode(ALL_FIELDS as Partial<CreateQrCodeInput>))
      const cleared = await client.patch(`/qr-codes/${code.id}`, {
        rules: [],
        expiresAt: null,
        expiredUrl: null,
        maxScans: null,
        afterLimitUrl: null,
        password: null,
        utm: {},
        forwardQuery: null,
      })
      expect(cleared.status, cleared.text).toBe(200)
      expect(cleared.body.data).toMatchObject(UNSET)
      const set = await client.patch(`/qr-codes/${code.id}`, { maxScans: 2, password: 'new one' })
      expect(set.body.data).toMatchObject({ maxScans: 2, hasPassword: true, rules: null })
      expect((await client.get(`/qr-codes/${code.id}`)).body.data).toMatchObject({
        maxScans: 2,
        hasPassword: true,
      })
    })

    it('accepts null for every field on a static code, changing nothing', async () => {
      const code = await createCode(client, textCode())
      const res = await client.patch(`/qr-codes/${code.id}`, { rules: null, maxScans: null, password: null })
      expect(res.status, res.text).toBe(200)
      expect(res.body.data).toMatchObject(UNSET)
    })
  })

  describe('errors', () => {
    it.each([
      ['rules', RULES],
      ['expiresAt', '2030-01-01T00:00:00Z'],
      ['expiredUrl', 'https://example.com/'],
      ['maxScans', 10],
      ['afterLimitUrl', 'https://example.com/'],
      ['password', 'secret'],
      ['utm', { source: 'x' }],
      ['forwardQuery', false],
    ])('refuses %s on a static code, on create and PATCH, naming the field', async (field, value) => {
      const created = await client.post('/qr-codes', { ...textCode(), [field]: value })
      expectError(created, 400, 'validation_error')
      expect(created.body.details.issues).toEqual([
        { path: field, message: expect.stringContaining('static') },
      ])
      const code = await createCode(client, textCode())
      const patched = await client.patch(`/qr-codes/${code.id}`, { [field]: value })
      expectError(patched, 400, 'validation_error')
      expect(patched.body.details.issues).toEqual([
        { path: field, message: expect.stringContaining('static') },
      ])
    })

    const dynamicWith = (fields: Record<string, unknown>) => ({ ...dynamicCode(), ...fields })
    const rule = (condition: Record<string, unknown>) => ({
      rules: [RULES[0], RULES[1], { targetUrl: 'https://example.com/', conditions: [condition] }],
    })
    it.each<[string, Record<string, unknown>, string]>([
      [
        'an unknown zone',
        rule({ type: 'schedule', timezone: 'Mars/Olympus' }),
        'rules.2.conditions.0.timezone',
      ],
      ['a missing zone', rule({ type: 'schedule', from: '11:00' }), 'rules.2.conditions.0.timezone'],
      ['a bad time', rule({ type: 'schedule', timezone: 'UTC', from: '25:00' }), 'rules.2.conditions.0.from'],
      [
        'a bad day',
        rule({ type: 'schedule', timezone: 'UTC', days: ['monday'] }),
        'rules.2.conditions.0.days.0',
      ],
      ['an unknown type', rule({ type: 'weather', values: ['sunny'] }), 'rules.2.conditions.0.type'],
      ['a lower-case country', rule({ type: 'country', values: ['de'] }), 'rules.2.conditions.0.values.0'],
      ['an unassigned country', rule({ type: 'country', values: ['XK'] }), 'rules.2.conditions.0.values.0'],
      ['an unknown device', rule({ type: 'device', values: ['watch'] }), 'rules.2.conditions.0.values.0'],
      ['an unknown os', rule({ type: 'os', values: ['symbian'] }), 'rules.2.conditions.0.values.0'],
      ['no values', rule({ type: 'os', values: [] }), 'rules.2.conditions.0.values'],
      [
        'a bad language tag',
        rule({ type: 'language', values: ['german!'] }),
        'rules.2.conditions.0.values.0',
      ],
      [
        'a date without offset',
        rule({ type: 'after', value: '2026-01-01T00:00:00' }),
        'rules.2.conditions.0.value',
      ],
      ['an empty query key', rule({ type: 'query', key: '' }), 'rules.2.conditions.0.key'],
      ['an extra key', rule({ type: 'device', values: ['mobile'], extra: 1 }), 'rules.2.conditions.0'],
      [
        'a ftp rule target',
        { rules: [{ targetUrl: 'ftp://x.example/', conditions: [{ type: 'device', values: ['mobile'] }] }] },
        'rules.0.targetUrl',
      ],
      [
        'no conditions',
        { rules: [{ targetUrl: 'https://x.example/', conditions: [] }] },
        'rules.0.conditions',
      ],
      [
        'six conditions',
        {
          rules: [
            {
              targetUrl: 'https://x.example/',
              conditions: Array(6).fill({ type: 'device', values: ['mobile'] }),
            },
          ],
        },
        'rules.0.conditions',
      ],
      ['21 rules', { rules: Array(21).fill(RULES[0]) }, 'rules'],
      ['maxScans 0', { maxScans: 0 }, 'maxScans'],
      ['maxScans 1.5', { maxScans: 1.5 }, 'maxScans'],
      ['a short password', { password: 'abc' }, 'password'],
      ['a long password', { password: 'x'.repeat(129) }, 'password'],
      ['expiresAt not RFC 3339', { expiresAt: 'tomorrow' }, 'expiresAt'],
      ['expiresAt before 1970 in UTC', { expiresAt: '0000-01-01T00:00:00+14:00' }, 'expiresAt'],
      [
        'a rule date past 9999 in UTC',
        rule({ type: 'before', value: '9999-12-31T23:59:59-14:00' }),
        'rules.2.conditions.0.value',
      ],
      ['a relative expiredUrl', { expiredUrl: '/over' }, 'expiredUrl'],
      ['an unknown utm key', { utm: { sauce: 'x' } }, 'utm'],
      ['an empty utm value', { utm: { source: '' } }, 'utm.source'],
      ['forwardQuery as a string', { forwardQuery: 'yes' }, 'forwardQuery'],
    ])('refuses %s with a 400 naming the full path', async (_name, fields, path) => {
      const res = await client.post('/qr-codes', dynamicWith(fields))
      expectError(res, 400, 'validation_error')
      expect(res.body.details.issues.map((i: { path: string }) => i.path)).toContain(path)
      const code = await createCode(client, dynamicCode())
      const patched = await client.patch(`/qr-codes/${code.id}`, fields)
      expectError(patched, 400, 'validation_error')
      expect(patched.body.details.issues.map((i: { path: string }) => i.path)).toContain(path)
    })
  })

  describe('security', () => {
    it('answers 404 for a PATCH of another account’s code', async () => {
      const other = await server.createAccount()
      const code = await createCode(api(server, other.apiKey), dynamicCode())
      const res = await client.patch(`/qr-codes/${code.id}`, { maxScans: 1 })
      expectError(res, 404, 'not_found')
    })

    it('answers 403 to a read-only key', async () => {
      const reader = await server.createAccount({ scope: 'read' })
      const res = await api(server, reader.apiKey).post(
        '/qr-codes',
        dynamicCode({ maxScans: 1 } as Partial<CreateQrCodeInput>),
      )
      expectError(res, 403, 'insufficient_scope')
    })
  })
})
