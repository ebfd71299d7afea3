/**
 * Webhook receivers for bench/webhooks.ts, in a process of their own: `count` servers on
 * 127.0.0.1, the last of which never answers (every attempt to it times out). Prints
 * `receivers <port,port,…>` once listening and, on SIGTERM, `received <n>`.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

const count = Number(process.argv[2] ?? 10)
let received = 0
const ports: number[] = []
for (let i = 0; i < count; i++) {
  const hangs = i === count - 1
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      received++
      if (!hangs) res.writeHead(204).end()
    })
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  ports.push((server.address() as AddressInfo).port)
}
process.stdout.write(`receivers ${ports.join(',')}\n`)
process.on('SIGTERM', () => {
  process.stdout.write(`received ${received}\n`)
  process.exit(0)
})
