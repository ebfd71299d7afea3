import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type QrCode, Qrctl, QrctlConflictError } from '@qrctl/sdk'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BatchState } from './state.js'
import { batchKey, type ChunkDone, outcomesOf, upload } from './upload.js'

const code = (id: string) => ({ id }) as QrCode

describe('batchKey', () => {
  it('names the file hash and the first and last line', () => {
    expect(batchKey('abcdef0123456789', [2, 3, 101])).toBe('batch-abcdef0123456789-2-101')
  })
})

describe('outcomesOf', () => {
  const lines = [2, 3, 5, 6]
  const HOLDER = '3f2b8c1e-9d4a-4b7e-8c2f-1a6d5e4b3c2a'

  it('pairs created items with the rows in order, skipping the indexes named in errors', () => {
    const result = {
      created: 2,
      errors: ['codes[1].targetUrl: Invalid URL', 'codes[1].name: Too long', 'codes[3]: Duplicate'],
      items: [code('a'), code('b')],
    }
    expect(outcomesOf(lines, result)).toEqual([
      { line: 2, status: 'created', code: code('a') },
      { line: 3, status: 'failed', errors: ['targetUrl: Invalid URL', 'name: Too long'] },
      { line: 5, status: 'created', code: code('b') },
      { line: 6, status: 'failed', errors: ['Duplicate'] },
    ])
  })

  it('tells a row whose externalId was uploaded before from a failed one', () => {
    const result = {
      created: 1,
      errors: [
        `codes[0].externalId: This externalId is already used by QR code ${HOLDER}`,
        `codes[2].name: Too long; codes[2].externalId: This externalId is already used by QR code ${HOLDER}`,
      ],
      items: [code('a'), code('b')],
    }
    const outcomes = outcomesOf(lines, result)
    expect(outcomes.map((o) => o.status)).toEqual(['exists', 'created', 'failed', 'created'])
    expect(outcomes[0]).toEqual({ line: 2, status: 'exists', id: HOLDER })
  })

  it('marks rows without an item as failed, with any error that names no index', () => {
    const outcomes = outcomesOf(lines, { created: 0, errors: ['something broke'], items: [] })
    expect(outcomes.every((o) => o.status === 'failed' && o.errors[0] === 'something broke')).toBe(true)
  })
})

describe('upload', () => {
  const API_KEY = `qrk_${'a'.repeat(40)}`
  const input = { name: 'a', contentType: 'text' as const, content: 'a' }
  const rows = [
    { line: 2, input },
    { line: 3, input },
  ]
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'qrctl-upload-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    })
  const created = { data: { created: 1, errors: [], items: [code('x')] } }
  const conflict = (reason: string, idempotencyKey: string) =>
    answer(409, { error: 'conflict', details: { message: `key ${reason}`, reason, idempotencyKey } })

  /** Runs `upload` over the chunks against scripted answers; returns what it reported and sent. */
  async function run(answers: ((key: string) => Response)[]) {
    const keys: string[] = []
    const fetch = async (_url: string, init: RequestInit) => {
      const key = new Headers(init.headers).get('idempotency-key') ?? ''
      keys.push(key)
      const next = answers.shift()
      if (!next) throw new Error('no answer scripted')
      return next(key)
    }
    const client = new Qrctl({ apiKey: API_KEY, fetch })
    const state = await BatchState.open({ XDG_STATE_HOME: dir }, 'f', API_KEY)
    const done: ChunkDone[] = []
    const waits: string[] = []
    const outcome = upload(
      client,
      rows,
      'f',
      state,
      { onChunk: (d) => done.push(d), onWait: (_, reason) => waits.push(reason) },
      new AbortController().signal,
      1,
    ).catch((error: unknown) => error)
    return { error: await outcome, keys, sources: done.map((d) => d.source), waits }
  }

  it('leaves a key still in progress to the SDK and tells replayed batches from sent ones', async () => {
    const { error, keys, sources, waits } = await run([
      () => answer(201, created),
      (key) => conflict('in_progress', key),
      () => answer(201, created, { 'idempotent-replayed': 'true' }),
    ])
    expect(error).toBeUndefined()
    expect(keys).toEqual(['batch-f-2-2', 'batch-f-3-3', 'batch-f-3-3'])
    expect(sources).toEqual(['sent', 'replayed'])
    expect(waits).toEqual([])
  })

  it('stops at a key used with other rows, without retrying', async () => {
    const { error, keys, sources } = await run([(key) => conflict('mismatch', key)])
    expect(error).toBeInstanceOf(QrctlConflictError)
    expect(keys).toEqual(['batch-f-2-2'])
    expect(sources).toEqual([])
  })
})
