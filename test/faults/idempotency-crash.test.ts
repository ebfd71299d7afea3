import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig, openDatabase } from '@qrctl/server'
import { afterEach, describe, expect, it } from 'vitest'
import { api, dynamicCode } from '../api/helpers.js'
import { sleep } from '../support/faults.js'
import { launchServerCommand, startServerProcess } from '../support/process.js'
import { createPostgresDatabase, type Dialect, dialects } from '../support/server.js'

/**
 * Issue #12, item 2. A real `qrctl-server start` child is killed with SIGKILL at a random
 * moment while idempotent batch requests are in flight, 20 times; then every batch is retried
 * with its key until it answers 201. Each batch's answer is stored in the transaction that
 * creates its codes, so a batch that committed replays and one that did not runs now: every
 * batch exists exactly once, counted by its name prefix in the database.
 */
const KILLS = 20
const BATCHES_PER_ROUND = 3
const BATCH_SIZE = 25

describe.each(dialects())('idempotent batches across kill -9 on %s', (dialect: Dialect) => {
  let dir: string
  let drop: (() => Promise<void>) | undefined

  afterEach(async () => {
    await drop?.()
    drop = undefined
    rmSync(dir, { recursive: true, force: true })
  })

  it(`creates every batch exactly once across ${KILLS} kills and retries with the same key`, async () => {
    dir = mkdtempSync(join(tmpdir(), 'qrctl-crash-'))
    let databaseUrl = `file:${join(dir, 'qrctl.db')}`
    if (dialect === 'postgres') {
      const db = await createPostgresDatabase()
      drop = db.drop
      databaseUrl = db.url
    }
    const env = {
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '1000000',
      // A request cut off by the kill before it committed frees its key after 1 s, not 60 s.
      IDEMPOTENCY_PENDING_SECONDS: '1',
    }
    const created = await launchServerCommand(['admin', 'create-account', '--name', 'crash', '--json'], env)
      .done
    expect(created.code, created.stderr).toBe(0)
    const { apiKey } = JSON.parse(created.stdout) as { apiKey: string }

    const batches: { key: string; prefix: string; body: { codes: unknown[] } }[] = []
    let answeredBeforeKill = 0
    for (let round = 0; round < KILLS; round++) {
      const server = await startServerProcess(env)
      const client = api({ baseUrl: server.url }, apiKey)
      const inFlight = Array.from({ length: BATCHES_PER_ROUND }, (_, j) => {
        const prefix = `crash-${round}-${j}-`
        const body = {
          codes: Array.from({ length: BATCH_SIZE }, (_, n) => dynamicCode({ name: `${prefix}${n}` })),
        }
        const key = `crash-key-${round}-${j}`
        batches.push({ key, prefix, body })
        return client.post('/qr-codes/batch', body, { headers: { 'idempotency-key': key } }).then(
          (res) => res.status === 201,
          () => false,
        )
      })
      // Half the rounds die at a random moment, half as the first answer arrives, when the
      // next batch is most likely between its commit and its answer.
      const firstAnswer = Promise.race(inFlight)
      await (round % 2 === 0 ? sleep(Math.random() * 150) : Promise.race([firstAnswer, sleep(2000)]))
      server.child.kill('SIGKILL')
      const exit = await server.done
      expect(exit.signal).toBe('SIGKILL')
      answeredBeforeKill += (await Promise.all(inFlight)).filter(Boolean).length
    }

    const server = await startServerProcess(env)
    const client = api({ baseUrl: server.url }, apiKey)
    let replayed = 0
    try {
      for (const batch of batches) {
        for (let attempt = 0; ; attempt++) {
          const res = await client.post('/qr-codes/batch', batch.body, {
            headers: { 'idempotency-key': batch.key },
          })
          if (res.status === 201) {
            expect(res.body.data.created).toBe(BATCH_SIZE)
            if (res.headers.get('idempotent-replayed') === 'true') replayed++
            break
          }
          // Cut off before its commit: the key is pending until IDEMPOTENCY_PENDING_SECONDS pass.
          expect({ status: res.status, reason: res.body?.details?.reason }).toEqual({
            status: 409,
            reason: 'in_progress',
          })
          expect(attempt).toBeLessThan(20)
          await sleep(250)
        }
      }
    } finally {
      server.child.kill('SIGTERM')
      await server.done
    }

    const { db, close } = openDatabase(loadConfig({ DATABASE_URL: databaseUrl }).database)
    const rows = await db.selectFrom('qr_codes').select('name').where('name', 'like', 'crash-%').execute()
    await close()
    const perBatch = new Map<string, number>()
    for (const { name } of rows) {
      const prefix = name.slice(0, name.lastIndexOf('-') + 1)
      perBatch.set(prefix, (perBatch.get(prefix) ?? 0) + 1)
    }
    console.info(
      `kill -9 on ${dialect}: ${KILLS} kills, ${batches.length} batches, ${answeredBeforeKill} answered before the kill, ` +
        `${replayed} replayed on retry, ${batches.length - replayed} ran on retry, ${rows.length} codes`,
    )
    expect(Object.fromEntries(perBatch)).toEqual(
      Object.fromEntries(batches.map((b) => [b.prefix, BATCH_SIZE])),
    )
  }, 600_000)
})
