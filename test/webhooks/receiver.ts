import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { expect } from 'vitest'

export interface Received {
  headers: IncomingHttpHeaders
  body: string
  receivedAt: number
}

/** How the receiver answers one request: a status, or never (the socket stays open). */
export type Answer =
  | { status: number; body?: string; headers?: Record<string, string>; delayMs?: number }
  | 'hang'

export interface Receiver {
  /** e.g. http://127.0.0.1:PORT/hook */
  url: string
  port: number
  received: Received[]
  /** The most requests it held open at once. */
  maxConcurrent: number
  /** Decides each answer; 204 by default. */
  answer: (req: Received) => Answer
  /** Resolves once `count` requests have arrived (polling), failing after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>
  close(): Promise<void>
}

/** A webhook receiver on 127.0.0.1 (the only place tests send to), recording every request. */
export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const hanging = new Set<import('node:http').ServerResponse>()
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    maxConcurrent: 0,
    answer: () => ({ status: 204 }),
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs
      while (receiver.received.length < count) {
        if (Date.now() > deadline)
          throw new Error(`expected ${count} webhook requests, got ${receiver.received.length}`)
        await new Promise((r) => setTimeout(r, 25))
      }
      return receiver.received
    },
    close: async () => {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  let open = 0
  const server: Server = createServer((req, res) => {
    open++
    receiver.maxConcurrent = Math.max(receiver.maxConcurrent, open)
    res.on('close', () => {
      open--
    })
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const got = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      }
      receiver.received.push(got)
      const answer = receiver.answer(got)
      if (answer === 'hang') {
        hanging.add(res)
        return
      }
      const send = () => {
        res.writeHead(answer.status, answer.headers)
        res.end(answer.body ?? '')
      }
      if (answer.delayMs) setTimeout(send, answer.delayMs)
      else send()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.port = (server.address() as AddressInfo).port
  receiver.url = `http://127.0.0.1:${receiver.port}${path}`
  return receiver
}

/** Verifies a request with the reference implementation (`standardwebhooks`) and answers the event. */
export function verifyWithReference(
  secret: string,
  got: Received,
): { type: string; timestamp: string; data: unknown } {
  const headers = {
    'webhook-id': String(got.headers['webhook-id']),
    'webhook-timestamp': String(got.headers['webhook-timestamp']),
    'webhook-signature': String(got.headers['webhook-signature']),
  }
  const verified = new Webhook(secret).verify(got.body, headers) as {
    type: string
    timestamp: string
    data: unknown
  }
  expect(got.headers['content-type']).toBe('application/json')
  return verified
}
