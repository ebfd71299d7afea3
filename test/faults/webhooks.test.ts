import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig, openDatabase } from '@qrctl/server'
import { afterEach, describe, expect, it } from 'vitest'
import { api, textCode } from '../api/helpers.js'
import { sleep } from '../support/faults.js'
import { launchServerCommand, type ServerProcess, startServerProcess } from '../support/process.js'
import { createPostgresDatabase, type Dialect, dialects } from '../support/server.js'
import { type Receiver, startReceiver, verifyWithReference } from '../webhooks/receiver.js'

/**
 * Issue #18.3. The outbox is in the database: real `qrctl-server start` children, killed with
 * SIGKILL in the middle of a burst of deliveries, lose no event once restarted; and two
 * processes sharing one database never attempt the same delivery at the same time.
 */
const BATCHES = 4
const BATCH_SIZE = 40

describe.each(dialects())('webhook deliveries across processes on %s', (dialect: Dialect) => {
  let dir: string
  let drop: (() => Promise<void>) | undefined
  const children: ServerProcess[] = []
  let receiver: Receiver | undefined

  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGTERM')
      await child.done
    }
    await receiver?.close()
    await drop?.()
    drop = undefined
    rmSync(dir, { recursive: true, force: true })
  })

  /** A database, an account, a receiver and a webhook on every `qr_code.created`. */
  async function setup(answerDelayMs: number) {
    dir = mkdtempSync(join(tmpdir(), 'qrctl-webhooks-'))
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
      WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_DELAYS: '1,1,1,1,1,1,1,1',
      WEBHOOK_TIMEOUT_MS: '2000',
    }
    const created = await launchServerCommand(['admin', 'create-account', '--name', 'hooks', '--json'], env)
      .done
    expect(created.code, created.stderr).toBe(0)
    const { apiKey } = JSON.parse(created.stdout) as { apiKey: string }
    receiver = await startReceiver()
    receiver.answer = () => ({ status: 204, delayMs: answerDelayMs })
    const first = await startServerProcess(env)
    children.push(first)
    const made = await api({ baseUrl: first.url }, apiKey).post('/webhooks', {
      url: receiver.url,
      events: ['qr_code.created'],
    })
    expect(made.status, made.text).toBe(201)
    return { env, apiKey, first, secret: made.body.data.secret as string, databaseUrl }
  }

  /** Sends BATCHES batches of codes; answers how many were created. */
  async function burst(url: string, apiKey: string, prefix: string): Promise<void> {
    const client = api({ baseUrl: url }, apiKey)
    await Promise.all(
      Array.from({ length: BATCHES }, (_, b) =>
        client
          .post('/qr-codes/batch', {
            codes: Array.from({ length: BATCH_SIZE }, (_, n) => textCode({ name: `${prefix}-${b}-${n}` })),
          })
          .catch(() => undefined),
      ),
    )
  }

  async function storedCodeIds(databaseUrl: string): Promise<string[]> {
    const { db, close } = openDatabase(loadConfig({ DATABASE_URL: databaseUrl }).database)
    const rows = await db.selectFrom('qr_codes').select('id').execute()
    await close()
    return rows.map((r) => r.id)
  }

  /** The attempts each event's deliveries recorded, by event id (the webhook-id header). */
  async function recordedAttempts(databaseUrl: string): Promise<Map<string, number>> {
    const { db, close } = openDatabase(loadConfig({ DATABASE_URL: databaseUrl }).database)
    const rows = await db.selectFrom('webhook_deliveries').select(['event_id', 'attempts']).execute()
    await close()
    const byEvent = new Map<string, number>()
    for (const r of rows) byEvent.set(r.event_id, (byEvent.get(r.event_id) ?? 0) + Number(r.attempts))
    return byEvent
  }

  /** Distinct events received (receivers deduplicate by webhook-id), each verified. */
  function distinctCodeIds(secret: string): Set<string> {
    const byId = new Map<string, string>()
    for (const got of receiver?.received ?? []) {
      const event = verifyWithReference(secret, got) as { data: { id: string } }
      byId.set(String(got.headers['webhook-id']), event.data.id)
    }
    return new Set(byId.values())
  }

  it('delivers every event at least once across kill -9 in the middle of a burst', async () => {
    const { env, apiKey, first, secret, databaseUrl } = await setup(30)
    await burst(first.url, apiKey, 'a')
    // Killed while deliveries are pending: some sent, most waiting in the outbox.
    await receiver?.waitFor(5)
    first.child.kill('SIGKILL')
    expect((await first.done).signal).toBe('SIGKILL')
    const before = receiver?.received.length ?? 0
    const stored = await storedCodeIds(databaseUrl)
    expect(stored).toHaveLength(BATCHES * BATCH_SIZE)
    expect(before).toBeLessThan(stored.length)

    const second = await startServerProcess(env)
    children.push(second)
    const deadline = Date.now() + 90_000
    while (distinctCodeIds(secret).size < stored.length && Date.now() < deadline) await sleep(200)
    expect([...distinctCodeIds(secret)].sort()).toEqual([...stored].sort())
    console.info(
      `webhooks kill -9 on ${dialect}: ${stored.length} events, ${before} received before the kill, ` +
        `${receiver?.received.length} requests in all`,
    )
  }, 180_000)

  it('two processes on one database attempt each delivery once, a few at a time', async () => {
    const { env, apiKey, first, secret, databaseUrl } = await setup(5)
    const second = await startServerProcess(env)
    children.push(second)
    await Promise.all([burst(first.url, apiKey, 'one'), burst(second.url, apiKey, 'two')])
    const stored = await storedCodeIds(databaseUrl)
    expect(stored).toHaveLength(2 * BATCHES * BATCH_SIZE)
    const deadline = Date.now() + 90_000
    while (distinctCodeIds(secret).size < stored.length && Date.now() < deadline) await sleep(200)
    expect([...distinctCodeIds(secret)].sort()).toEqual([...stored].sort())
    // Each request the receiver got is an attempt its delivery recorded. A second request for
    // one webhook-id is a retry only if the delivery counts two attempts (on a loaded machine an
    // answer can come after WEBHOOK_TIMEOUT_MS). Two processes holding the same delivery, or an
    // outcome the sender did not store (its lease ran out and it went again), count fewer.
    const requests = new Map<string, number>()
    for (const r of receiver?.received ?? []) {
      const id = String(r.headers['webhook-id'])
      requests.set(id, (requests.get(id) ?? 0) + 1)
    }
    // The last answers may still be on their way to the database.
    let overlapping: [string, number][] = []
    const recorded = Date.now() + 30_000
    for (;;) {
      const attempts = await recordedAttempts(databaseUrl)
      overlapping = [...requests].filter(([id, n]) => n > (attempts.get(id) ?? 0))
      if (overlapping.length === 0 || Date.now() >= recorded) break
      await sleep(200)
    }
    expect(overlapping).toEqual([])
    const retried = [...requests.values()].filter((n) => n > 1).length
    if (retried > 0) console.info(`webhooks on ${dialect}: ${retried} deliveries retried after a timeout`)
    // At most 4 in flight per webhook per process (PER_WEBHOOK_IN_FLIGHT), two processes.
    expect(receiver?.maxConcurrent).toBeLessThanOrEqual(8)
  }, 180_000)
})
