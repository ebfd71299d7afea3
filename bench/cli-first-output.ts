/**
 * How soon `qrctl` prints something for a command that waits on the network (STYLE: within
 * 100 ms, node's own start-up aside). Measured against a baseline in the same run: `node -e`
 * writing one byte. Both run on a terminal (`script`), against a server that accepts the
 * connection and never answers, interleaved so both see the same load; the best of ROUNDS
 * of each is reported, with the difference. A wall-clock figure, so it lives here and not in
 * the tests.
 *
 *   npm run build -w qrctl && npm run bench:cli -w @qrctl/bench
 *   BENCH_ROUNDS=40 npm run bench:cli -w @qrctl/bench
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20)
const TARGET_MS = 100
const MAIN = fileURLToPath(new URL('../cli/dist/main.js', import.meta.url))
if (!existsSync(MAIN)) {
  console.error('qrctl is not built: run `npm run build -w qrctl` first')
  process.exit(1)
}

/** Milliseconds from spawning `script -qec CMD` to its first byte of output. */
function firstByteMs(command: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', TERM: 'xterm', SHELL: '/bin/sh', ...env },
      detached: true,
    })
    child.stdin.end()
    child.on('error', reject)
    child.stdout.once('data', () => {
      resolve(performance.now() - started)
      try {
        process.kill(-(child.pid as number), 'SIGKILL')
      } catch {
        // already gone
      }
    })
  })
}

const sockets = new Set<Socket>()
const blackHole = createServer((socket) => {
  sockets.add(socket)
})
await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve))
const port = (blackHole.address() as { port: number }).port
const home = mkdtempSync(join(tmpdir(), 'qrctl-bench-cli-'))
const env = {
  HOME: home,
  XDG_CONFIG_HOME: join(home, 'config'),
  XDG_STATE_HOME: join(home, 'state'),
  QRCTL_BASE_URL: `http://127.0.0.1:${port}`,
  QRCTL_API_KEY: `qrk_${'a'.repeat(40)}`,
}
const node = `'${process.execPath}'`
const baselineCommand = `${node} -e "process.stderr.write('x'); setTimeout(() => {}, 5000)"`
const cliCommand = `${node} '${MAIN}' list 2>&1 >/dev/null`

let baseline = Number.POSITIVE_INFINITY
let cli = Number.POSITIVE_INFINITY
for (let i = 0; i < ROUNDS; i++) {
  baseline = Math.min(baseline, await firstByteMs(baselineCommand, env))
  cli = Math.min(cli, await firstByteMs(cliCommand, env))
}
for (const socket of sockets) socket.destroy()
blackHole.close()
rmSync(home, { recursive: true, force: true })

const extra = cli - baseline
console.log(`first output of \`qrctl list\` on a terminal, best of ${ROUNDS} (interleaved):`)
console.log(`  node -e alone   ${baseline.toFixed(1)} ms`)
console.log(`  qrctl list      ${cli.toFixed(1)} ms   (${(cli / baseline).toFixed(2)}x node alone)`)
console.log(
  `  qrctl's own     ${extra.toFixed(1)} ms   (target: under ${TARGET_MS} ms) ${extra < TARGET_MS ? 'ok' : 'OVER'}`,
)
