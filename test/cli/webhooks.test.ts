import {
  Qrctl,
  type Qrctl as QrctlClient,
  verifyWebhook,
  type Webhook,
  type WebhookDelivery,
} from '@qrctl/sdk'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from '../support/server.js'
import { type Receiver, startReceiver } from '../webhooks/receiver.js'
import { apiEnv, buildCli, type Home, plain, runCli, tempHome } from './support/cli.js'

let server: TestServer
let receiver: Receiver
let home: Home
let env: Record<string, string>
let sdk: QrctlClient

beforeAll(async () => {
  buildCli()
  server = await startServer({ env: { WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_RETRY_DELAYS: '' } })
  receiver = await startReceiver()
}, 180_000)
afterAll(async () => {
  await server?.close()
  await receiver?.close()
})
beforeEach(async () => {
  home = tempHome()
  const account = await server.createAccount()
  sdk = new Qrctl({ apiKey: account.apiKey, baseUrl: server.baseUrl })
  env = apiEnv(home, server, account.apiKey)
})
afterEach(async () => {
  await sdk.close()
  home.cleanup()
})

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/

describe('qrctl webhooks', () => {
  it('create prints the secret alone on stdout; list, test and deliveries show the rest', async () => {
    const created = await runCli(
      ['webhooks', 'create', '--url', receiver.url, '--events', 'webhook.test,scan.created'],
      { env },
    )
    expect(created.code, created.stderr).toBe(0)
    const secret = created.stdout.trimEnd()
    expect(secret).toMatch(SECRET)
    expect(created.stderr).toContain('not shown again')
    expect(created.stderr).not.toContain(secret)

    const list = await runCli(['webhooks', 'list'], { env })
    expect(list.code).toBe(0)
    expect(list.stdout).not.toContain(secret)
    const [id, url, events, codes, status] = list.stdout.trimEnd().split('\t')
    expect({ url, events, codes, status }).toEqual({
      url: receiver.url,
      events: 'webhook.test,scan.created',
      codes: '',
      status: 'active',
    })
    const before = receiver.received.length
    const test = await runCli(['webhooks', 'test', id as string], { env })
    expect(test.code, test.stderr).toBe(0)
    expect(test.stdout.split('\t').slice(1, 3)).toEqual(['webhook.test', 'pending'])
    const [got] = (await receiver.waitFor(before + 1)).slice(before)
    expect(verifyWebhook(got?.body ?? '', got?.headers ?? {}, secret).type).toBe('webhook.test')

    let deliveries: WebhookDelivery[] = []
    for (let i = 0; i < 50 && deliveries[0]?.status !== 'succeeded'; i++) {
      const res = await runCli(['webhooks', 'deliveries', id as string, '--json'], { env })
      deliveries = JSON.parse(res.stdout) as WebhookDelivery[]
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(deliveries[0]).toMatchObject({
      type: 'webhook.test',
      status: 'succeeded',
      attempts: 1,
      responseStatus: 204,
    })
    const again = await runCli(['webhooks', 'redeliver', id as string, deliveries[0]?.id as string], { env })
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain('Queued another attempt')
  })

  it('update, rotate-secret and delete; destructive commands need --yes off a terminal', async () => {
    const hook = await sdk.webhooks.create({ url: receiver.url, events: ['*'] })
    const updated = await runCli(
      ['webhooks', 'update', hook.id, '--disable', '--description', 'paused', '--json'],
      { env },
    )
    expect(updated.code, updated.stderr).toBe(0)
    expect(JSON.parse(updated.stdout) as Webhook).toMatchObject({ isActive: false, description: 'paused' })
    expect((await runCli(['webhooks', 'rotate-secret', hook.id], { env })).code).toBe(2)
    const rotated = await runCli(['webhooks', 'rotate-secret', hook.id, '--yes'], { env })
    expect(rotated.code).toBe(0)
    expect(rotated.stdout.trimEnd()).toMatch(SECRET)
    expect(rotated.stdout.trimEnd()).not.toBe(hook.secret)
    expect((await runCli(['webhooks', 'delete', hook.id], { env })).code).toBe(2)
    const deleted = await runCli(['webhooks', 'delete', hook.id, '--yes'], { env })
    expect(deleted.code).toBe(0)
    expect(deleted.stderr).toContain(`Deleted webhook ${hook.id}`)
    expect((await sdk.webhooks.list()).total).toBe(0)
  })

  it('refuses an unknown event before any request, and says why the server refused a URL', async () => {
    const typo = await runCli(['webhooks', 'create', '--url', receiver.url, '--events', 'scan.creatd'], {
      env,
    })
    expect(typo.code).toBe(2)
    expect(typo.stderr).toContain("Unknown event 'scan.creatd'")
    const refused = await runCli(['webhooks', 'create', '--url', 'http://127.0.0.2/x'], { env })
    expect(refused.code).toBe(1)
    expect(plain(refused.stderr)).toMatch(/url.*not a public address/)
    expect(refused.stdout).toBe('')
  })

  it('on a terminal: a table with a header', async () => {
    await sdk.webhooks.create({ url: receiver.url, events: ['qr_code.created'] })
    const res = await runCli(['webhooks', 'list'], { env, tty: 'stdout' })
    expect(res.code).toBe(0)
    expect(plain(res.stdout)).toMatch(/^ID +URL +EVENTS +CODES +STATUS/)
    expect(plain(res.stdout)).toContain('qr_code.created')
  })
})
