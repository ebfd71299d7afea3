import { describe, expect, it } from 'vitest'
import { AllowList, guardedLookup, isPublicAddress, mayConnect } from './webhook-destinations.js'

// Pure functions of literal addresses: nothing here connects anywhere, and the only name
// looked up is `localhost` (from the hosts file).
describe('webhook destinations', () => {
  it.each([
    '0.0.0.0',
    '10.1.2.3',
    '100.64.0.1',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '192.168.1.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
    '2001:db8::1',
    '2002:a00:1::',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    'not an address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false)
  })

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2a00:1450:4001:800::200e', '2606:4700::1111'])(
    'accepts the public address %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true)
    },
  )

  it('allows what WEBHOOK_ALLOW_HOSTS names: addresses, CIDRs and host names', () => {
    const allow = new AllowList(['127.0.0.1', '10.0.0.0/8', 'fd00::/8', 'hooks.internal'])
    expect(mayConnect('127.0.0.1', allow)).toBe(true)
    expect(mayConnect('127.0.0.2', allow)).toBe(false)
    expect(mayConnect('10.9.8.7', allow)).toBe(true)
    expect(mayConnect('fd00::5', allow)).toBe(true)
    expect(mayConnect('192.168.0.1', allow)).toBe(false)
    expect(allow.hasName('hooks.internal')).toBe(true)
    expect(allow.hasName('other.internal')).toBe(false)
  })

  it('the sockets’ lookup drops addresses that may not be reached, and fails when none is left', async () => {
    const lookup = (allow: AllowList) =>
      new Promise<{ error: NodeJS.ErrnoException | null; addresses: unknown }>((resolve) =>
        guardedLookup(allow)('localhost', { all: true }, (error, addresses) => resolve({ error, addresses })),
      )
    const refused = await lookup(new AllowList([]))
    expect(refused.error?.code).toBe('EREFUSEDADDRESS')
    const allowed = await lookup(new AllowList(['127.0.0.1']))
    expect(allowed.error).toBeNull()
    expect(allowed.addresses).toEqual([{ address: '127.0.0.1', family: 4 }])
  })
})
