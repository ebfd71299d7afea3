import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { Style } from '@qrctl/contract'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createDecodeCheckPool, type DecodeCheckPool, decodeCheck } from '../src/check/index.js'
import { writePng } from './support/decode.js'

/**
 * The decode check on worker threads (DESIGN §13): the same verdict as `decodeCheck` on the
 * calling thread, for passing and failing designs, from source (tsx in the thread) and from the
 * built package, and a process that uses it still ends by itself.
 */

const PAYLOAD = 'https://qrctl.example/r/Xq7Lm2a'
const SCANNABLE: Style = {
  moduleShape: 'dot',
  finderShape: 'rounded',
  gradient: { type: 'linear', colors: ['#1A237E', '#4A148C'], rotation: 45 },
  frame: { style: 'box', text: 'Scan for the menu' },
}
const UNSCANNABLE: Style = { margin: 0, frame: { style: 'box', text: 'Scan' } }
const LOGO_ON_FINDER: Style = {
  logo: { assetId: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', size: 0.3, padding: 4 },
}
const logo = writePng({ width: 40, height: 40, data: new Uint8Array(40 * 40 * 4).fill(200) })
const WITH_LOGO: Style = {
  moduleShape: 'rounded',
  logo: { assetId: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d' },
}

let pool: DecodeCheckPool | undefined
afterEach(async () => {
  await pool?.close()
  pool = undefined
})

/** A thread that dies before it says it is ready, as one whose loader is missing would. */
const brokenThread = () => new Worker('throw new Error("no loader here")', { eval: true })
/** A thread that never says it is ready. */
const silentThread = () => new Worker('setInterval(() => {}, 1000)', { eval: true })
/** A thread that starts, then exits in the middle of its first check. */
const dyingThread = () =>
  new Worker(
    `const { parentPort } = require('node:worker_threads')
     parentPort.postMessage({ ready: true })
     parentPort.on('message', () => process.exit(3))`,
    { eval: true },
  )

/**
 * A thread that answers each check 50 ms after it gets it, one at a time, and says in `reason`
 * how many checks it already held (unanswered) when that one arrived.
 */
const countingThread = () =>
  new Worker(
    `const { parentPort } = require('node:worker_threads')
     const held = []
     const answerNext = () => setTimeout(() => {
       parentPort.postMessage({ id: held[0].id, result: { ok: true, checks: [], reason: held[0].reason } })
       held.shift()
       if (held.length > 0) answerNext()
     }, 50)
     parentPort.on('message', (task) => {
       held.push({ id: task.id, reason: String(held.length) })
       if (held.length === 1) answerNext()
     })
     parentPort.postMessage({ ready: true })`,
    { eval: true },
  )

describe('the decode-check pool', () => {
  it('gives the verdict the calling thread gives, for passing and failing designs', async () => {
    pool = createDecodeCheckPool({ size: 2, runHereWhileStarting: false })
    const cases: Array<[string, Style, Uint8Array | undefined]> = [
      [PAYLOAD, SCANNABLE, undefined],
      [PAYLOAD, UNSCANNABLE, undefined],
      ['hi', LOGO_ON_FINDER, undefined],
      [PAYLOAD, WITH_LOGO, logo],
    ]
    const onThreads = await Promise.all(cases.map(([p, s, l]) => pool?.check(p, s, l)))
    const here = await Promise.all(cases.map(([p, s, l]) => decodeCheck(p, s, l)))
    expect(onThreads).toEqual(here)
    expect(onThreads.map((r) => r?.ok)).toEqual([true, false, false, true])
    expect(onThreads[1]?.checks.map((c) => c.size)).toEqual([256, 256, 1024, 1024])
    expect(onThreads[2]).toMatchObject({ ok: false, checks: [] })
  })

  it('starts no more threads than its size, and only when checks arrive', async () => {
    pool = createDecodeCheckPool({ size: 2, runHereWhileStarting: false })
    expect(pool.threads).toBe(0)
    const payloads = Array.from({ length: 5 }, (_, i) => `${PAYLOAD}${i}`)
    const results = await Promise.all(payloads.map((p) => pool?.check(p, SCANNABLE)))
    expect(results).toEqual(await Promise.all(payloads.map((p) => decodeCheck(p, SCANNABLE))))
    expect(pool.threads).toBe(2)
  })

  it('ends idle threads, and starts one again for the next check', async () => {
    pool = createDecodeCheckPool({ size: 1, idleMs: 10, runHereWhileStarting: false })
    expect((await pool.check(PAYLOAD, SCANNABLE)).ok).toBe(true)
    await vi.waitFor(() => expect(pool?.threads).toBe(0), { timeout: 10_000 })
    expect((await pool.check(PAYLOAD, UNSCANNABLE)).ok).toBe(false)
  })

  it('rejects checks once closed, and those still waiting when it closes', async () => {
    pool = createDecodeCheckPool({ size: 1, runHereWhileStarting: false })
    const first = expect(pool.check(PAYLOAD, SCANNABLE)).rejects.toThrow(/closed/)
    const waiting = expect(pool.check(`${PAYLOAD}2`, SCANNABLE)).rejects.toThrow(/closed/)
    await pool.close()
    await first
    await waiting
    await expect(pool.check(PAYLOAD, SCANNABLE)).rejects.toThrow(/closed/)
    expect(pool.threads).toBe(0)
  })

  it('runs the checks on the calling thread when a thread cannot start, and says so', async () => {
    const onError = vi.fn()
    pool = createDecodeCheckPool({ size: 2, onError, startThread: brokenThread, runHereWhileStarting: false })
    const results = await Promise.all([pool.check(PAYLOAD, SCANNABLE), pool.check(PAYLOAD, UNSCANNABLE)])
    expect(results).toEqual([await decodeCheck(PAYLOAD, SCANNABLE), await decodeCheck(PAYLOAD, UNSCANNABLE)])
    expect(onError).toHaveBeenCalled()
    expect(String(onError.mock.calls[0]?.[0])).toMatch(/no loader here/)
  })

  it('runs a check again on the calling thread when its thread dies in the middle', async () => {
    const onError = vi.fn()
    pool = createDecodeCheckPool({ size: 1, onError, startThread: dyingThread, runHereWhileStarting: false })
    expect(await pool.check(PAYLOAD, UNSCANNABLE)).toEqual(await decodeCheck(PAYLOAD, UNSCANNABLE))
    expect(String(onError.mock.calls[0]?.[0])).toMatch(/exited \(code 3\)/)
  })

  it('hands a busy thread its next check early while more wait than there are threads, not the last ones', async () => {
    pool = createDecodeCheckPool({ size: 1, startThread: countingThread, runHereWhileStarting: false })
    const payloads = Array.from({ length: 4 }, (_, i) => `${PAYLOAD}${i}`)
    const results = await Promise.all(payloads.map((p) => pool?.check(p, SCANNABLE)))
    // The 2nd arrives while the 1st runs (3 were waiting for 1 thread), the 3rd as the 2nd
    // starts (2 waiting); the last waits in the pool until the thread is free.
    expect(results.map((r) => r?.reason)).toEqual(['0', '1', '1', '0'])
  })

  it('runs every check it had handed to a thread that dies, running or waiting there', async () => {
    const onError = vi.fn()
    pool = createDecodeCheckPool({ size: 1, onError, startThread: dyingThread, runHereWhileStarting: false })
    const cases: Array<[string, Style]> = [
      [PAYLOAD, UNSCANNABLE],
      [`${PAYLOAD}2`, SCANNABLE],
      [`${PAYLOAD}3`, UNSCANNABLE],
    ]
    const results = await Promise.all(cases.map(([p, s]) => pool?.check(p, s)))
    expect(results).toEqual(await Promise.all(cases.map(([p, s]) => decodeCheck(p, s))))
  })

  it('gives up on a thread that never gets ready', async () => {
    const onError = vi.fn()
    pool = createDecodeCheckPool({
      size: 1,
      onError,
      startThread: silentThread,
      startTimeoutMs: 50,
      runHereWhileStarting: false,
    })
    expect((await pool.check(PAYLOAD, SCANNABLE)).ok).toBe(true)
    expect(String(onError.mock.calls[0]?.[0])).toMatch(/not ready/)
  })

  it('runs checks on the calling thread, one at a time, while its threads start', async () => {
    const onError = vi.fn()
    pool = createDecodeCheckPool({ size: 2, onError, startThread: silentThread })
    const payloads = [PAYLOAD, `${PAYLOAD}2`, `${PAYLOAD}3`]
    const results = await Promise.all(payloads.map((p) => pool?.check(p, SCANNABLE)))
    expect(results).toEqual(await Promise.all(payloads.map((p) => decodeCheck(p, SCANNABLE))))
    expect(pool.threads).toBe(0)
    expect(onError).not.toHaveBeenCalled()
  })

  it('runs from the built package, and the process ends by itself with idle threads', async () => {
    const built = fileURLToPath(new URL('../dist/check/index.js', import.meta.url))
    expect(existsSync(built), 'build first: npm run build (this test runs render/dist)').toBe(true)
    // No close(): idle threads must not keep the process alive.
    // Run with `node -e`, whose `--input-type` flag the threads must not inherit.
    const script = `
      const { createDecodeCheckPool } = await import(${JSON.stringify(built)})
      const pool = createDecodeCheckPool({ size: 2, runHereWhileStarting: false })
      const results = await Promise.all([
        pool.check(${JSON.stringify(PAYLOAD)}, ${JSON.stringify(SCANNABLE)}),
        pool.check(${JSON.stringify(PAYLOAD)}, ${JSON.stringify(UNSCANNABLE)}),
      ])
      console.log(JSON.stringify({ ok: results.map((r) => r.ok), threads: pool.threads }))`
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--input-type=module', '-e', script],
        { timeout: 60_000 },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      ),
    )
    expect(JSON.parse(stdout)).toEqual({ ok: [true, false], threads: 2 })
  })
})
