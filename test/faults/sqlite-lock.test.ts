import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import type { QrCode } from '@qrctl/contract'
import { loadConfig, openDatabase } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, createCode, dynamicCode } from '../api/helpers.js'
import { BROWSER_AGENT, runLoad, waitFor } from '../support/faults.js'
import { launchServerCommand } from '../support/process.js'
import { startServer, type TestServer } from '../support/server.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const LOCK_MS = 10_000

/**
 * A second process holding the SQLite file's write lock (`BEGIN EXCLUSIVE`, as a backup
 * script or the sqlite3 shell would) for 10 s, better-sqlite3 in a child `node -e`.
 */
function holdLock(
  file: string,
  ms: number,
): { child: ChildProcess; locked: Promise<void>; done: Promise<void> } {
  const script = `
    const Database = require('better-sqlite3')
    const db = new Database(process.argv[1])
    db.exec('BEGIN EXCLUSIVE')
    db.exec("INSERT INTO settings (key, value) VALUES ('lock-holder', 'x')")
    process.stdout.write('locked\\n')
    setTimeout(() => { db.exec('ROLLBACK'); db.close(); process.stdout.write('released\\n') }, Number(process.argv[2]))
  `
  const child = spawn(process.execPath, ['-e', script, file, String(ms)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const locked = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('locked')) resolve()
    })
    child.once('exit', () => reject(new Error(`lock holder exited: ${stderr}`)))
  })
  const done = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return { child, locked, done }
}

/**
 * Issue #12, item 4. While another process holds the lock, reads, redirects and /healthz keep
 * answering (WAL), writes wait asynchronously and answer 503 with Retry-After or succeed after
 * the lock, the event loop is never blocked for long, and scans are written after release.
 */
describe('SQLite held locked by another process', () => {
  let server: TestServer
  let file: string
  let codes: QrCode[]
  const figures: Record<string, unknown> = {}

  beforeAll(async () => {
    server = await startServer({ env: { RATE_LIMIT_PER_MINUTE: '1000000' } })
    file = server.databaseUrl.slice('file:'.length)
    const client = api(server, server.apiKey)
    codes = []
    for (let i = 0; i < 3; i++) codes.push(await createCode(client, dynamicCode({ name: `lock ${i}` })))
  })

  afterAll(async () => {
    console.info('SQLite lock figures', JSON.stringify(figures))
    await server?.close()
  })

  const storedScans = async () => {
    const row = await server.ctx.db
      .selectFrom('scans')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }

  it('keeps reads, redirects and /healthz answering during a 10 s lock; writes wait, then 503 or succeed; scans land after', async () => {
    const client = api(server, server.apiKey)
    const before = await storedScans()
    const loop = monitorEventLoopDelay({ resolution: 10 })
    const lock = holdLock(file, LOCK_MS)
    await lock.locked
    loop.enable()
    let redirected = 0
    let writesRefused = 0
    let writesCreated = 0
    const readLatency = { max: 0 }
    const timed = async <T>(read: () => Promise<T>) => {
      const started = performance.now()
      const answer = await read()
      readLatency.max = Math.max(readLatency.max, performance.now() - started)
      return answer
    }
    const load = runLoad(
      6,
      async (i) => {
        const code = codes[i % codes.length] as QrCode
        switch (i % 6) {
          case 0: {
            const res = await timed(() => fetch(`${server.baseUrl}/healthz`))
            await res.arrayBuffer()
            return { status: res.status, what: 'healthz' }
          }
          case 1:
            return { status: (await timed(() => client.get('/qr-codes?limit=5'))).status, what: 'list' }
          case 2:
            return { status: (await timed(() => client.get(`/qr-codes/${code.id}`))).status, what: 'get' }
          case 3: {
            const res = await client.post('/qr-codes', dynamicCode({ name: `lock write ${i}` }))
            if (res.status === 201) writesCreated++
            if (res.status !== 503) return { status: res.status, what: 'write' }
            writesRefused++
            const ok =
              res.body.error === 'service_unavailable' && /^\d+$/.test(res.headers.get('retry-after') ?? '')
            return { status: 503, what: ok ? 'write' : `write ${res.text}` }
          }
          default: {
            const res = await timed(() =>
              fetch(`${server.baseUrl}/r/${code.shortCode}`, {
                redirect: 'manual',
                headers: { 'user-agent': BROWSER_AGENT },
              }),
            )
            await res.arrayBuffer()
            if (res.status === 302) redirected++
            return { status: res.status, what: 'redirect' }
          }
        }
      },
      (status, what) =>
        what === 'write' ? status === 201 || status === 503 : status === 200 || status === 302,
    )
    await lock.done
    loop.disable()
    // After the release every write succeeds again.
    const after = await client.post('/qr-codes', dynamicCode({ name: 'lock write after' }))
    expect(after.status, after.text).toBe(201)
    const result = await load.stop()
    expect(
      await waitFor(async () => {
        await server.running.scans.flush()
        return server.running.scans.pending() === 0
      }, 10_000),
    ).toBe(true)
    const scans = (await storedScans()) - before
    figures.lock = {
      ...result,
      lockMs: LOCK_MS,
      readMaxMs: Math.round(readLatency.max),
      eventLoopMaxDelayMs: Math.round(loop.max / 1e6),
      writesRefused,
      writesCreated,
      redirected,
      scansStored: scans,
    }
    expect(result.unexpected).toEqual([])
    expect(writesRefused).toBeGreaterThan(0)
    expect(readLatency.max).toBeLessThan(1000)
    expect(redirected).toBeGreaterThan(0)
    expect(scans).toBe(redirected)
  }, 60_000)

  it('backs up online while another process holds the lock: a consistent copy of every code', async () => {
    const lock = holdLock(file, 120_000)
    await lock.locked
    const backupFile = join(mkdtempSync(join(tmpdir(), 'qrctl-backup-')), 'copy.db')
    try {
      const backup = await launchServerCommand(['backup', backupFile], { DATABASE_URL: server.databaseUrl })
        .done
      expect(backup.code, backup.stderr).toBe(0)
      expect(backup.stdout).toMatch(/Backed up to .* \(\d+ pages\)/)
    } finally {
      lock.child.kill('SIGKILL')
      await lock.done
    }
    const copy = openDatabase(loadConfig({ DATABASE_URL: `file:${backupFile}` }).database)
    const copied = await copy.db.selectFrom('qr_codes').select('id').execute()
    const live = await server.ctx.db.selectFrom('qr_codes').select('id').execute()
    await copy.close()
    rmSync(join(backupFile, '..'), { recursive: true, force: true })
    expect(copied.map((r) => r.id).sort()).toEqual(live.map((r) => r.id).sort())
  }, 120_000)

  it('backup refuses PostgreSQL with a pointer to pg_dump, and an existing file', async () => {
    const pgBackup = await launchServerCommand(['backup', join(tmpdir(), 'never-written.db')], {
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/qrctl',
    }).done
    expect(pgBackup.code).toBe(1)
    expect(pgBackup.stderr).toMatch(/pg_dump/)
    const existing = await launchServerCommand(['backup', file], { DATABASE_URL: server.databaseUrl }).done
    expect(existing.code).toBe(1)
    expect(existing.stderr).toMatch(/already exists/)
    expect(existsSync(file)).toBe(true)
  })
})
