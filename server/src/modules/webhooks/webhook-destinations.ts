import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns'
import { BlockList, isIP, type LookupFunction } from 'node:net'

/**
 * Where a webhook may send (DESIGN §15, issue #18.5): only public addresses. Every range below
 * is refused, unless WEBHOOK_ALLOW_HOSTS names the host as written or the address it resolves to.
 * A literal list: nothing here looks anything up to decide what is public.
 */
const NOT_PUBLIC: [address: string, prefix: number, type: 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'], // "this network", unspecified
  ['10.0.0.0', 8, 'ipv4'], // private
  ['100.64.0.0', 10, 'ipv4'], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12, 'ipv4'], // private
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.0.2.0', 24, 'ipv4'], // documentation
  ['192.88.99.0', 24, 'ipv4'], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16, 'ipv4'], // private
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['198.51.100.0', 24, 'ipv4'], // documentation
  ['203.0.113.0', 24, 'ipv4'], // documentation
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, and 255.255.255.255 broadcast
  ['::', 128, 'ipv6'], // unspecified
  ['::1', 128, 'ipv6'], // loopback
  ['64:ff9b::', 96, 'ipv6'], // NAT64, likewise
  ['64:ff9b:1::', 48, 'ipv6'], // local-use NAT64
  ['100::', 64, 'ipv6'], // discard
  ['2001::', 23, 'ipv6'], // IETF protocol assignments (Teredo among them)
  ['2001:db8::', 32, 'ipv6'], // documentation
  ['2002::', 16, 'ipv6'], // 6to4: embeds an IPv4 address
  ['fc00::', 7, 'ipv6'], // unique local (private)
  ['fe80::', 10, 'ipv6'], // link-local
  ['fec0::', 10, 'ipv6'], // site-local (deprecated)
  ['ff00::', 8, 'ipv6'], // multicast
]

// IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) need no rule of their own: BlockList checks
// them against the IPv4 rules. (A rule for ::ffff:0:0/96 would match every IPv4 address.)
const notPublic = new BlockList()
for (const [address, prefix, type] of NOT_PUBLIC) notPublic.addSubnet(address, prefix, type)

/** The host of a URL as written, without IPv6 brackets, lower case. */
export function hostOf(url: string): string {
  return new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase()
}

/** True for an address on the public internet (not in any refused range). */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 0) return false
  return !notPublic.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

/** WEBHOOK_ALLOW_HOSTS as a matcher of host names, addresses and CIDRs. */
export class AllowList {
  private readonly names = new Set<string>()
  private readonly addresses = new BlockList()

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [address, prefix] = entry.split('/')
      const family = isIP(address ?? '')
      if (family === 0) {
        this.names.add(entry.replace(/^\[|\]$/g, ''))
        continue
      }
      const type = family === 4 ? 'ipv4' : 'ipv6'
      if (prefix === undefined) this.addresses.addAddress(address as string, type)
      else this.addresses.addSubnet(address as string, Number(prefix), type)
    }
  }

  hasName(host: string): boolean {
    return this.names.has(host)
  }

  hasAddress(address: string): boolean {
    const family = isIP(address)
    if (family === 0) return false
    return this.addresses.check(address, family === 4 ? 'ipv4' : 'ipv6') || this.names.has(address)
  }
}

/** An address a webhook may connect to: public, or allowed. */
export function mayConnect(address: string, allow: AllowList): boolean {
  return isPublicAddress(address) || allow.hasAddress(address)
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  )
}

/**
 * The check at save: why `url` may not be a webhook's destination, or undefined when it may.
 * A name must resolve, and every address it resolves to must be allowed.
 */
export async function destinationProblem(url: string, allow: AllowList): Promise<string | undefined> {
  const host = hostOf(url)
  if (allow.hasName(host)) return undefined
  if (isIP(host) !== 0) {
    return mayConnect(host, allow)
      ? undefined
      : `${host} is not a public address: webhooks only reach public hosts`
  }
  let addresses: LookupAddress[]
  try {
    addresses = await resolveAll(host)
  } catch {
    return `The host ${host} could not be resolved`
  }
  const refused = addresses.find((a) => !mayConnect(a.address, allow))
  if (addresses.length === 0) return `The host ${host} could not be resolved`
  if (refused)
    return `${host} resolves to ${refused.address}, which is not public: webhooks only reach public hosts`
  return undefined
}

/**
 * A `lookup` for the sockets of deliveries: it resolves as usual and keeps only addresses the
 * webhook may connect to, so the check applies to the address actually connected to, at every
 * attempt (DNS can change between the save and the send). A name allowed as written skips it.
 */
export function guardedLookup(allow: AllowList): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, [])
      const usable = allow.hasName(hostname.toLowerCase())
        ? addresses
        : addresses.filter((a) => mayConnect(a.address, allow))
      if (usable.length === 0) {
        const refused = new Error(
          `${hostname} resolves only to addresses that are not public`,
        ) as NodeJS.ErrnoException
        refused.code = 'EREFUSEDADDRESS'
        return callback(refused, [])
      }
      if (options.all) return callback(null, usable)
      const first = usable[0] as LookupAddress
      return callback(null, first.address, first.family)
    })
  }
}
