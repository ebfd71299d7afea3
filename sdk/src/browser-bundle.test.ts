import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runInNewContext } from 'node:vm'
import { gzipSync } from 'node:zlib'
import * as esbuild from 'esbuild'
import { describe, expect, it } from 'vitest'
import { ID, qrCode } from '../test/fake-fetch.js'

const sdkRoot = join(dirname(fileURLToPath(import.meta.url)), '..')

/** What a web app does with the SDK: a client in session mode that reads one code. */
const APP = `
import { Qrctl } from '@qrctl/sdk'
export async function run(token) {
  const qrctl = new Qrctl({ csrfToken: token })
  return { baseUrl: qrctl.baseUrl, code: await qrctl.qrCodes.get('${ID}') }
}
`

async function bundle(conditions: string[]) {
  const result = await esbuild.build({
    stdin: { contents: APP, resolveDir: sdkRoot, loader: 'js' },
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'app',
    platform: 'browser',
    minify: true,
    conditions,
    metafile: true,
    logLevel: 'silent',
  })
  const code = result.outputFiles[0]?.text ?? ''
  return { code, inputs: Object.keys(result.metafile.inputs) }
}

interface Call {
  url: string
  init: RequestInit
}

/**
 * Runs the bundle in a bare context holding only what browsers have (no `process`, no
 * `require`, no Buffer), with a page origin and a fetch that records its calls.
 */
async function runInPage(code: string) {
  const calls: Call[] = []
  const page = {
    location: { origin: 'http://127.0.0.1:8080' },
    fetch: async (url: string, init: RequestInit) => {
      calls.push({ url, init })
      return new Response(JSON.stringify({ data: qrCode() }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      })
    },
    crypto: { getRandomValues: (bytes: Uint8Array) => crypto.getRandomValues(bytes) },
    ...{ AbortController, AbortSignal, Headers, Request, Response, URL, URLSearchParams },
    ...{ TextEncoder, TextDecoder, performance, setTimeout, clearTimeout, console, Blob, FormData },
  }
  runInNewContext(`${code}\nglobalThis.app = app`, page)
  const app = (page as unknown as { app: { run(token: string): Promise<{ baseUrl: string }> } }).app
  const result = await app.run('page-token')
  return { result, calls }
}

describe('the SDK in a browser bundle', () => {
  it.each([
    ['from source', ['browser', 'source']],
    ['from dist', ['browser']],
  ])(
    'bundles %s with esbuild without undici or Node built-ins, and talks in session mode',
    async (_, conditions) => {
      if (conditions.length === 1 && !existsSync(join(sdkRoot, 'dist/runtime.browser.js'))) {
        throw new Error('sdk/dist is missing: run `npm run build` first (turbo does before tests)')
      }
      const { code, inputs } = await bundle(conditions)
      expect(inputs.filter((path) => /undici|node:/.test(path))).toEqual([])
      expect(inputs.some((path) => /runtime\.browser\.(ts|js)$/.test(path))).toBe(true)
      expect(code).not.toMatch(/undici|node:crypto|process\.version/)

      const { result, calls } = await runInPage(code)
      expect(result.baseUrl).toBe('http://127.0.0.1:8080')
      expect(calls.map((call) => call.url)).toEqual([`http://127.0.0.1:8080/api/v1/qr-codes/${ID}`])
      const headers = new Headers(calls[0]?.init.headers)
      expect(headers.get('x-csrf-token')).toBe('page-token')
      expect(headers.has('authorization')).toBe(false)
      expect(headers.has('user-agent')).toBe(false)
      expect(calls[0]?.init.credentials).toBe('same-origin')
      // For the record: what the SDK (contract and zod included) costs a page, gzipped.
      expect(gzipSync(code).length).toBeLessThan(100 * 1024)
    },
  )
})
