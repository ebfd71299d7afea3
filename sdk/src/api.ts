import { type Contract, contract } from '@qrctl/contract'
import { type InitClientReturn, initClient } from '@ts-rest/core'
import { QrctlError } from './errors.js'
import type { FetcherArgs, FetcherResult, Transport } from './transport.js'

interface ApiClientArgs {
  baseUrl: string
  api: (args: FetcherArgs) => Promise<FetcherResult>
}

/** The ts-rest client of the whole contract, spelled out so declarations stay portable (TS2742). */
export type Api = InitClientReturn<Contract, ApiClientArgs>

export function createApi(baseUrl: string, transport: Transport): Api {
  return initClient(contract, { baseUrl, api: transport.fetcher })
}

/**
 * The body of an answer with the expected status. The transport throws for every error
 * status, so anything else here is a success status the contract does not name.
 */
export function bodyOf<R extends { status: number; body: unknown }, S extends R['status']>(
  response: R,
  status: S,
): Extract<R, { status: S }>['body'] {
  if (response.status !== status) {
    throw new QrctlError(`Unexpected HTTP ${response.status} from the API (expected ${status})`)
  }
  return response.body
}

/**
 * An id for a URL path. ts-rest inserts path params as they are: an empty id would silently
 * turn `GET /qr-codes/:id` into the list route, and `..` would climb to another route.
 */
export function pathId(id: string): string {
  if (typeof id !== 'string' || id === '' || /^\.+$/.test(id)) {
    throw new TypeError(`Qrctl: expected an id, got ${JSON.stringify(id)}`)
  }
  return encodeURIComponent(id)
}
