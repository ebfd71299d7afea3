import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const WEB_SRC = join(import.meta.dirname, '../../web/src')

/** Every TypeScript file of the dashboard's source. */
function sources(dir = WEB_SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  )
}

describe('the dashboard source (issue #21.1)', () => {
  it('calls the API only through @qrctl/sdk: no fetch, XMLHttpRequest, sendBeacon or WebSocket of its own', () => {
    const files = sources()
    expect(files.length).toBeGreaterThan(10)
    const own = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ at: `${file.slice(WEB_SRC.length + 1)}:${i + 1}`, line }))
        .filter(({ line }) => /\bfetch\s*\(|XMLHttpRequest|sendBeacon|new WebSocket|EventSource/.test(line)),
    )
    expect(own).toEqual([])
    expect(files.some((file) => readFileSync(file, 'utf8').includes("from '@qrctl/sdk'"))).toBe(true)
  })
})
