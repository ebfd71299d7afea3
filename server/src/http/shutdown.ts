import type { Server, ServerResponse } from 'node:http'
import { Server as NetServer, type Socket } from 'node:net'

/** What a socket is answering now: Node keeps it there (stable since Node 0.x, not in the typings). */
type HttpSocket = Socket & { _httpMessage?: ServerResponse | null }

/** How long a keep-alive connection may stay idle once draining began before it is closed. */
const IDLE_LINGER_MS = 500

export interface Drainer {
  /** True from the start of `drain()`: every answer from then on says `Connection: close`. */
  readonly isDraining: boolean
  /**
   * Stops accepting connections, answers every request already received, and lets each
   * keep-alive client go: an answer in progress, and every later one on an open connection,
   * carries `Connection: close` (the client reconnects elsewhere, no request is cut), and a
   * connection still idle after a short linger is closed. Resolves when every connection is
   * gone, or after `timeoutMs`, when the rest are cut; `forced` counts those.
   */
  drain(timeoutMs: number): Promise<{ forced: number }>
}

/**
 * Graceful shutdown of the HTTP server (issue #12): Node's `server.close()` closes idle
 * keep-alive connections at once, and a client that was just writing its next request on one
 * sees a reset, so the listening socket is closed on its own and idle connections only
 * after the linger.
 */
export function createDrainer(server: Server): Drainer {
  const sockets = new Set<HttpSocket>()
  server.on('connection', (socket: HttpSocket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  let isDraining = false

  const drain = async (timeoutMs: number) => {
    isDraining = true
    NetServer.prototype.close.call(server)
    for (const socket of sockets) {
      const res = socket._httpMessage
      if (res && !res.headersSent) res.setHeader('Connection', 'close')
    }
    const deadline = Date.now() + timeoutMs
    const lingerUntil = Date.now() + Math.min(IDLE_LINGER_MS, timeoutMs)
    while (sockets.size > 0 && Date.now() < deadline) {
      if (Date.now() >= lingerUntil) server.closeIdleConnections()
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const forced = sockets.size
    if (forced > 0) server.closeAllConnections()
    // Stops the server's own timers (the header-timeout check); the listener is already closed.
    server.close()
    return { forced }
  }

  return {
    get isDraining() {
      return isDraining
    },
    drain,
  }
}
