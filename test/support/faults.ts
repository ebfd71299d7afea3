import { connect, createServer, type Server, type Socket } from 'node:net'

/**
 * A TCP proxy on loopback in front of `target`, which a test can stop (every connection cut,
 * new ones refused) and start again on the same port: a database made unreachable without
 * touching the shared server.
 */
export interface TcpProxy {
  port: number
  /**
   * The next connection that sends a COMMIT gets no answer to it and is cut: the transaction
   * is committed, but the client cannot know. Resolves once it was cut.
   */
  cutAfterNextCommit(): Promise<void>
  stop(): Promise<void>
  start(): Promise<void>
  close(): Promise<void>
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  let cutAfterCommit: (() => void) | undefined
  let server: Server | undefined
  let port = 0
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = connect(target.port, target.host)
        sockets.add(client).add(upstream)
        const drop = () => {
          client.destroy()
          upstream.destroy()
          sockets.delete(client)
          sockets.delete(upstream)
        }
        client.on('error', drop).on('close', drop)
        upstream.on('error', drop).on('close', drop)
        client.pipe(upstream).pipe(client)
        client.on('data', (chunk: Buffer) => {
          const cut = cutAfterCommit
          if (!cut || !/commit/i.test(chunk.toString('latin1'))) return
          cutAfterCommit = undefined
          // The COMMIT goes on; its answer is held back, then the connection is cut.
          upstream.unpipe(client)
          setTimeout(() => {
            drop()
            cut()
          }, 200)
        })
      })
      s.once('error', reject)
      s.listen(port, '127.0.0.1', () => {
        const address = s.address()
        port = typeof address === 'object' && address ? address.port : port
        server = s
        resolve()
      })
    })
  const stop = async () => {
    const s = server
    server = undefined
    for (const socket of sockets) socket.destroy()
    sockets.clear()
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()))
  }
  await listen()
  return {
    get port() {
      return port
    },
    cutAfterNextCommit: () =>
      new Promise<void>((resolve) => {
        cutAfterCommit = resolve
      }),
    stop,
    start: listen,
    close: stop,
  }
}

export interface LoadResult {
  /** Every answer's status, by status code; `error` counts requests that got no answer at all. */
  statuses: Record<string, number>
  requests: number
  maxLatencyMs: number
  /** Answers outside the allowed set, with what went wrong, for the failure message. */
  unexpected: string[]
}

/**
 * Runs `concurrency` loops of `request` until `stop()` resolves, timing each request. `allowed`
 * says which statuses are acceptable; anything else (or a request that gets no answer) is kept.
 */
export function runLoad(
  concurrency: number,
  request: (i: number) => Promise<{ status: number; what: string }>,
  allowed: (status: number, what: string) => boolean,
): { stop(): Promise<LoadResult> } {
  const result: LoadResult = { statuses: {}, requests: 0, maxLatencyMs: 0, unexpected: [] }
  let running = true
  let n = 0
  const loop = async () => {
    while (running) {
      const started = performance.now()
      const i = n++
      let status = 'error'
      let what = ''
      try {
        const answer = await request(i)
        status = String(answer.status)
        what = answer.what
      } catch (error) {
        what = error instanceof Error ? `${error.message} ${String(error.cause ?? '')}` : String(error)
      }
      const ms = performance.now() - started
      result.requests++
      result.maxLatencyMs = Math.max(result.maxLatencyMs, ms)
      result.statuses[status] = (result.statuses[status] ?? 0) + 1
      if (status === 'error' || !allowed(Number(status), what)) {
        if (result.unexpected.length < 20) result.unexpected.push(`${status} ${what}`)
      }
    }
  }
  const loops = Array.from({ length: concurrency }, loop)
  return {
    stop: async () => {
      running = false
      await Promise.all(loops)
      result.maxLatencyMs = Math.round(result.maxLatencyMs)
      return result
    },
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `check` until it answers true or `timeoutMs` passes; true when it did. */
export async function waitFor(
  check: () => Promise<boolean>,
  timeoutMs: number,
  everyMs = 100,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return true
    await sleep(everyMs)
  }
  return false
}

export const BROWSER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'

/** A private redis-server on a loopback port, started and killed by the test (never the shared one). */
export interface PrivateRedis {
  url: string
  port: number
  /** SIGKILL, as a crash would. */
  kill(): Promise<void>
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>
}

export async function startPrivateRedis(port: number): Promise<PrivateRedis> {
  const { spawn } = await import('node:child_process')
  let child: import('node:child_process').ChildProcess | undefined
  const ping = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.setTimeout(500, () => {
        socket.destroy()
        resolve(false)
      })
      socket.on('error', () => resolve(false))
      socket.on('connect', () => socket.write('PING\r\n'))
      socket.on('data', (data) => {
        socket.destroy()
        resolve(data.toString().startsWith('+PONG'))
      })
    })
  const start = async () => {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
      ],
      { stdio: 'ignore' },
    )
    if (!(await waitFor(ping, 10_000, 50))) throw new Error(`redis-server did not start on ${port}`)
  }
  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill: async () => {
      const c = child
      child = undefined
      if (!c || c.exitCode !== null) return
      const exited = new Promise((resolve) => c.once('exit', resolve))
      c.kill('SIGKILL')
      await exited
    },
    restart: start,
  }
}
