import { afterEach } from 'vitest'
import { responseProblems } from './openapi-responses.js'

/**
 * Vitest setup file of the e2e workspace (#22): every answer a test receives through `fetch`
 * from a loopback /api/v1 address is checked against the OpenAPI document, and a test that
 * received one the document does not describe fails, whatever it asserted itself.
 */

const problems: string[] = []
const realFetch = globalThis.fetch
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])

async function checkedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await realFetch(input, init)
  const url = new URL(response.url || (input instanceof Request ? input.url : String(input)))
  if (!LOOPBACK.has(url.hostname) || !url.pathname.startsWith('/api/v1/')) return response
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET')
  const body = new Uint8Array(await response.clone().arrayBuffer())
  problems.push(
    ...responseProblems({ method, url: url.href, status: response.status, headers: response.headers, body }),
  )
  return response
}
globalThis.fetch = checkedFetch as typeof fetch

afterEach(() => {
  if (problems.length === 0) return
  const found = problems.splice(0)
  throw new Error(`answers that openapi.json does not describe (#22):\n  ${found.join('\n  ')}`)
})
