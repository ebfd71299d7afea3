import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from './server.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const MAIN = join(ROOT, 'server', 'src', 'main.ts')

export interface Output {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** `qrctl-server <args>` from source, in one node process (tsx loaded as a hook). */
export function launchServerCommand(
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; done: Promise<Output> } {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', MAIN, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const out = { stdout: '', stderr: '' }
  child.stdout?.on('data', (chunk: Buffer) => {
    out.stdout += chunk.toString('utf8')
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    out.stderr += chunk.toString('utf8')
  })
  const done = new Promise<Output>((resolve) => {
    child.on('exit', (code, signal) => setTimeout(() => resolve({ code, signal, ...out }), 50))
  })
  return { child, done }
}

export interface ServerProcess {
  url: string
  child: ChildProcess
  done: Promise<Output>
  /** What it wrote so far, both streams. */
  output(): string
}

/** `qrctl-server start` on a free loopback port, resolved once /healthz answers. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const { child, done } = launchServerCommand(['start'], { ...env, PORT: String(port), HOST: '127.0.0.1' })
  let output = ''
  const keep = (chunk: Buffer) => {
    output += chunk.toString('utf8')
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  let exited: Output | undefined
  void done.then((o) => {
    exited = o
  })
  // Generous: a loaded CI machine can take tens of seconds to start a process.
  const deadline = Date.now() + 90_000
  for (;;) {
    if (exited) throw new Error(`server exited early (${exited.code}): ${exited.stderr}`)
    if (Date.now() > deadline) throw new Error(`server did not start: ${output}`)
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return { url, child, done, output: () => output }
}
