import type { Qrctl } from '@qrctl/sdk'
import { InvalidArgumentError } from 'commander'
import { CliError } from './errors.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const SHORT_CODE = /^[0-9A-Za-z]{7}$/

/**
 * A commander parser for a QR code argument: its id (a UUID) or, for a dynamic code, its
 * 7-character short code (the end of its short URL). Anything else is a usage error before
 * any request.
 */
export function codeRef() {
  return (value: string): string => {
    const ref = value.trim()
    if (UUID.test(ref) || SHORT_CODE.test(ref)) return ref
    throw new InvalidArgumentError(
      'Not a QR code id: give its id (a UUID) or a dynamic code’s 7-character short code.',
    )
  }
}

/**
 * The id of the code a reference names: a UUID is used as is; a short code is looked up with
 * the list's `shortCode` filter (among deleted codes for `restore`), so the API keeps one kind
 * of id in its paths.
 */
export async function resolveCodeId(
  client: Qrctl,
  ref: string,
  options: { deleted?: boolean } = {},
): Promise<string> {
  if (UUID.test(ref)) return ref
  const page = await client.qrCodes.list({
    shortCode: ref,
    limit: 1,
    ...(options.deleted ? { deleted: true } : {}),
  })
  const code = page.data[0]
  if (!code) throw new CliError(`No ${options.deleted ? 'deleted ' : ''}QR code with the short code ${ref}`)
  return code.id
}
