import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'

/** What the proxy does with the n-th batch request (1-based). */
export type BatchAction = 'pass' | 'lose-answer'

export interface Proxy {
  url: string
  /** Batch requests seen so far. */
  batches: number
  /** Resolves once the server has answered the n-th batch request (whether or not the client got it). */
  answered(n: number): Promise<void>
  close(): Promise<void>
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/**
 * An HTTP proxy in front of a test server that can lose the answer of a chosen batch request:
 * the server handles it (the codes are created) but the client never hears back, as when a
 * connection drops or the CLI is killed mid-request. `onBatchAnswer` sees the status of each
 * batch answer and is awaited before the client gets it.
 */
export async function startProxy(
  target: string,
  decide: (n: number) => BatchAction,
  onBatchAnswer?: (n: number, status: number) => Promise<void>,
): Promise<Proxy> {
  const waiters = new Map<number, () => void>()
  const done = new Set<number>()
  const held = new Set<ServerResponse>()
  const state = { batches: 0 }
  const server = createServer(async (req, res) => {
    const isBatch = req.method === 'POST' && req.url?.startsWith('/api/v1/qr-codes/batch')
    const n = isBatch ? ++state.batches : 0
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(
        (e): e is [string, string] =>
          typeof e[1] === 'string' && !['host', 'connection', 'content-length'].includes(e[0]),
      ),
    )
    const payload = await body(req)
    const answer = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers,
      ...(payload.length > 0 ? { body: payload } : {}),
    })
    const bytes = Buffer.from(await answer.arrayBuffer())
    if (isBatch) {
      done.add(n)
      waiters.get(n)?.()
      await onBatchAnswer?.(n, answer.status)
    }
    if (isBatch && decide(n) === 'lose-answer') {
      held.add(res)
      return
    }
    const out: Record<string, string> = {}
    answer.headers.forEach((value, key) => {
      if (
        !['content-encoding', 'transfer-encoding', 'content-length', 'connection', 'keep-alive'].includes(key)
      )
        out[key] = value
    })
    res.writeHead(answer.status, out).end(bytes)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    get batches() {
      return state.batches
    },
    answered: (n) =>
      done.has(n) ? Promise.resolve() : new Promise<void>((resolve) => waiters.set(n, resolve)),
    close: async () => {
      for (const res of held) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
