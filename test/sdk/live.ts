import { connect, createServer, type Socket } from 'node:net'
import { Qrctl, type QrctlOptions } from '@qrctl/sdk'
import type { TestServer } from '../support/server.js'

/** A client of a fresh account on `server`, so tests do not share a rate-limit window. */
export async function clientOfNewAccount(
  server: TestServer,
  options: Omit<QrctlOptions, 'apiKey'> = {},
  account: Parameters<TestServer['createAccount']>[0] = {},
): Promise<Qrctl> {
  const { apiKey } = await server.createAccount(account)
  return new Qrctl({ baseUrl: server.baseUrl, ...options, apiKey })
}

/**
 * Puts the request the server answered under `key` back to "still running", as the server has
 * it between taking a request and storing its answer, so the next request with the key meets a
 * 409 `in_progress`. `finish` stores the answer again, as the running request would.
 */
export async function holdIdempotencyKey(
  server: TestServer,
  accountId: string,
  key: string,
): Promise<{ finish(): Promise<void> }> {
  const db = server.ctx.db
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['status', 'response_body'])
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .executeTakeFirstOrThrow()
  const store = (status: number | null, body: string | null) =>
    db
      .updateTable('idempotency_keys')
      .set({ status, response_body: body })
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .execute()
  await store(null, null)
  return {
    finish: async () => {
      await store(row.status, row.response_body)
    },
  }
}

/** `count` valid static text codes named `${prefix} 0`, `${prefix} 1` … */
export function textCodes(count: number, prefix = 'code') {
  return Array.from({ length: count }, (_, n) => ({
    name: `${prefix} ${n}`,
    contentType: 'text' as const,
    content: `${prefix} content ${n}`,
  }))
}

/**
 * What the proxy does with one connection: pass it through, forward the request but drop
 * the connection as the answer arrives (the server acted, the client never hears), or take
 * the request and never answer.
 */
export type ConnectionPlan = 'forward' | 'lose-answer' | 'black-hole'

export interface TcpProxy {
  /** Use as the client's baseUrl. */
  url: string
  /** Connections that carried a request (undici may open spare ones that never do). */
  connectionsUsed(): number
  close(): Promise<void>
}

/**
 * A TCP proxy in front of `targetUrl`. The n-th connection to carry a request (0-based) is
 * treated as `plan(n)` says.
 */
export async function startTcpProxy(
  targetUrl: string,
  plan: (n: number) => ConnectionPlan,
): Promise<TcpProxy> {
  const target = new URL(targetUrl)
  const sockets = new Set<Socket>()
  let used = 0
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => undefined)
  }
  const server = createServer((client) => {
    track(client)
    client.once('data', (first: Buffer) => {
      const mode = plan(used++)
      if (mode === 'black-hole') return
      const upstream = connect(Number(target.port), target.hostname)
      track(upstream)
      upstream.on('close', () => client.destroy())
      client.on('close', () => upstream.destroy())
      upstream.write(first)
      client.pipe(upstream)
      if (mode === 'forward') upstream.pipe(client)
      else upstream.once('data', () => client.destroy())
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    connectionsUsed: () => used,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
