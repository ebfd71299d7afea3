import { afterEach, vi } from 'vitest'
import { responseProblems } from './openapi-responses.js'

/**
 * Vitest setup file of the e2e workspace (#22): every answer a test receives from a loopback
 * /api/v1 address, through the global `fetch` (the tests' API helper, generated clients) or
 * undici's (the SDK's transport), is checked against the OpenAPI document; a test that received
 * one the document does not describe fails, whatever it asserted itself.
 */

const problems: string[] = []
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])

interface AnyResponse {
  url: string
  status: number
  headers: Headers
  clone(): { arrayBuffer(): Promise<ArrayBuffer> }
}
type AnyInput = string | URL | { url: string; method?: string }

async function check(response: AnyResponse, input: AnyInput, init: { method?: string } | undefined) {
  const url = new URL(
    response.url || (typeof input === 'object' && 'url' in input ? input.url : String(input)),
  )
  if (!LOOPBACK.has(url.hostname) || !url.pathname.startsWith('/api/v1/')) return
  const method =
    init?.method ?? (typeof input === 'object' && 'method' in input ? input.method : undefined) ?? 'GET'
  let body: Uint8Array
  try {
    body = new Uint8Array(await response.clone().arrayBuffer())
  } catch {
    return // The body broke off (an aborted or cut connection): the caller meets that itself.
  }
  problems.push(
    ...responseProblems({ method, url: url.href, status: response.status, headers: response.headers, body }),
  )
}

function checked<F extends (input: never, init?: never) => Promise<AnyResponse>>(fetchFn: F): F {
  const wrapped = async (input: AnyInput, init?: { method?: string }) => {
    const response = await fetchFn(input as never, init as never)
    await check(response, input, init)
    return response
  }
  Object.defineProperty(wrapped, 'name', { value: 'checkedFetch' })
  return wrapped as unknown as F
}

globalThis.fetch = checked(globalThis.fetch)

vi.mock('undici', async (importOriginal) => {
  const undici = await importOriginal<typeof import('undici')>()
  return { ...undici, fetch: checked(undici.fetch as never) }
})

/** The problems found so far, taken away (a test of the check itself reads them instead of failing). */
export function takeProblems(): string[] {
  return problems.splice(0)
}

afterEach(() => {
  if (problems.length === 0) return
  const found = problems.splice(0)
  throw new Error(`answers that openapi.json does not describe (#22):\n  ${found.join('\n  ')}`)
})
