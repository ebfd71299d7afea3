/**
 * #22.5: a customer's generated client works. The served document goes through
 * openapi-typescript; a strict program written against it with openapi-fetch (no casts)
 * compiles with `tsc --strict` and then runs against a live server: create, list, a PNG as
 * bytes, analytics, and a 404 read as the document's `Error` type.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import openapiTS, { astToString } from 'openapi-typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from '../support/server.js'
import { UNLIMITED } from './helpers.js'

const require = createRequire(import.meta.url)
const tsc = join(require.resolve('typescript/package.json'), '..', 'bin', 'tsc')

/** What a customer writes: no `as`, no `any`, every answer narrowed through openapi-fetch's types. */
const PROGRAM = `import createClient from 'openapi-fetch'
import type { components, paths } from './schema.js'

type QrCode = components['schemas']['QrCode']
type ApiError = components['schemas']['Error']

export interface Outcome {
  id: string
  shortUrl: string | null
  listed: number
  png: Uint8Array
  totalEvents: number
  errorStatus: number
  error: ApiError | undefined
}

export async function run(baseUrl: string, key: string): Promise<Outcome> {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${key}\` } })

  const created = await client.POST('/api/v1/qr-codes', {
    body: { name: 'generated client', contentType: 'url', content: 'https://example.com/generated', type: 'dynamic' },
  })
  if (!created.data) throw new Error(\`create answered \${created.response.status}\`)
  const code: QrCode = created.data.data

  const list = await client.GET('/api/v1/qr-codes', { params: { query: { limit: 10, deleted: 'false' } } })
  if (!list.data) throw new Error(\`list answered \${list.response.status}\`)

  const image = await client.GET('/api/v1/qr-codes/{id}/image.png', {
    params: { path: { id: code.id }, query: { size: 128 } },
    parseAs: 'arrayBuffer',
  })
  if (!image.data) throw new Error(\`image answered \${image.response.status}\`)
  const png = new Uint8Array(image.data)

  const analytics = await client.GET('/api/v1/qr-codes/{id}/analytics', {
    params: { path: { id: code.id }, query: { period: '7d' } },
  })
  if (!analytics.data) throw new Error(\`analytics answered \${analytics.response.status}\`)

  const missing = await client.GET('/api/v1/qr-codes/{id}', {
    params: { path: { id: '00000000-0000-4000-8000-000000000000' } },
  })
  const error: ApiError | undefined = missing.error

  return {
    id: code.id,
    shortUrl: code.shortUrl,
    listed: list.data.data.length,
    png,
    totalEvents: analytics.data.data.totalEvents,
    errorStatus: missing.response.status,
    error,
  }
}

/** Never called: compiles only while the document marks the create body required. */
export async function bodyIsRequired(baseUrl: string): Promise<void> {
  const client = createClient<paths>({ baseUrl })
  // @ts-expect-error a create without its body does not compile
  await client.POST('/api/v1/qr-codes', {})
}
`

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noEmit: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    target: 'ES2022',
    lib: ['ES2022', 'DOM'],
    types: [],
    skipLibCheck: true,
  },
  files: ['program.ts', 'schema.d.ts'],
}

interface Outcome {
  id: string
  shortUrl: string | null
  listed: number
  png: Uint8Array
  totalEvents: number
  errorStatus: number
  error: { error: string; details: { message: string } } | undefined
}

describe('a client generated from the served OpenAPI document', () => {
  let server: TestServer
  let dir: string

  beforeAll(async () => {
    server = await startServer({ env: UNLIMITED })
    // Inside the workspace's node_modules, so the program resolves openapi-fetch as a customer's would.
    const base = fileURLToPath(new URL('../node_modules/.cache/', import.meta.url))
    mkdirSync(base, { recursive: true })
    dir = mkdtempSync(join(base, 'openapi-client-'))
  })
  afterAll(async () => {
    await server?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('compiles a strict openapi-fetch program without casts and runs it against the server', async () => {
    const served = await fetch(`${server.baseUrl}/api/v1/openapi.json`)
    expect(served.status).toBe(200)
    const document = (await served.json()) as { servers: { url: string }[] }
    // The paths carry /api/v1: the base URL is the served `servers` URL, the bare origin.
    expect(document.servers[0]?.url).toBe(server.baseUrl)

    const schema = astToString(await openapiTS(document as Parameters<typeof openapiTS>[0]))
    expect(schema).toContain('QrCode: {')
    expect(schema).toContain('Error: {')
    writeFileSync(join(dir, 'schema.d.ts'), schema)
    writeFileSync(join(dir, 'program.ts'), PROGRAM)
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG))
    expect(PROGRAM).not.toMatch(/\bas\s+(?!const\b)|\bany\b/)

    const compiled = await promisify(execFile)(process.execPath, [
      tsc,
      '-p',
      join(dir, 'tsconfig.json'),
    ]).then(
      () => ({ ok: true, output: '' }),
      (error: { stdout?: string; stderr?: string }) => ({
        ok: false,
        output: `${error.stdout}${error.stderr}`,
      }),
    )
    expect(compiled.output).toBe('')
    expect(compiled.ok).toBe(true)

    const program = (await import(pathToFileURL(join(dir, 'program.ts')).href)) as {
      run(baseUrl: string, key: string): Promise<Outcome>
    }
    const outcome = await program.run(document.servers[0]?.url ?? '', server.apiKey)
    expect(outcome.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(outcome.shortUrl).toMatch(/\/r\/[0-9A-Za-z]{7}$/)
    expect(outcome.listed).toBe(1)
    expect([...outcome.png.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    expect(outcome.totalEvents).toBe(0)
    expect(outcome.errorStatus).toBe(404)
    expect(outcome.error).toMatchObject({ error: 'not_found', details: { message: expect.any(String) } })
  })
})
