import { execFile } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { QrCode } from '@qrctl/contract'
import { ManualClock } from '@qrctl/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, T0, UNLIMITED } from '../api/helpers.js'
import { buildCli, MAIN, ROOT } from '../cli/support/cli.js'
import { AGENTS } from '../redirects/scan-helpers.js'
import { startServer, type TestServer } from '../support/server.js'

const run = promisify(execFile)

/** Every fenced block of docs/redirect-rules.md that starts with `recipe: NAME (FORM)`. */
function recipes(): { name: string; form: 'curl' | 'sdk' | 'cli'; code: string }[] {
  const text = readFileSync(join(ROOT, 'docs', 'redirect-rules.md'), 'utf8')
  const found = [
    ...text.matchAll(/```(?:sh|ts)\n(?:#|\/\/) recipe: ([a-z-]+) \((curl|sdk|cli)\)\n([\s\S]*?)```/g),
  ]
  return found.map((m) => ({
    name: m[1] as string,
    form: m[2] as 'curl' | 'sdk' | 'cli',
    code: m[3] as string,
  }))
}

type Where = (ua?: string, headers?: Record<string, string>) => Promise<string | number | null>

/** What each recipe's code must do, checked by scanning it. */
const CHECKS: Record<string, (where: Where, clock: ManualClock) => Promise<void>> = {
  'app-store-split': async (where) => {
    expect(await where(AGENTS.iphone.ua)).toBe('https://apps.apple.com/app/id123456789')
    expect(await where(AGENTS.android.ua)).toBe(
      'https://play.google.com/store/apps/details?id=com.example.app',
    )
    expect(await where(AGENTS.windows.ua)).toBe('https://example.com/app')
  },
  'language-pages': async (where) => {
    expect(await where(undefined, { 'accept-language': 'de-AT,de;q=0.9,en;q=0.5' })).toBe(
      'https://example.com/de/brochure',
    )
    expect(await where(undefined, { 'accept-language': 'en;q=0.4, fr-CA' })).toBe(
      'https://example.com/fr/brochure',
    )
    expect(await where(undefined, { 'accept-language': 'es' })).toBe('https://example.com/en/brochure')
  },
  'lunch-dinner': async (where, clock) => {
    clock.set('2026-07-01T10:00:00Z') // 12:00 in Berlin, summer time
    expect(await where()).toBe('https://example.com/menu/lunch')
    clock.set('2026-07-01T14:00:00Z') // 16:00
    expect(await where()).toBe('https://example.com/menu')
    clock.set('2026-01-15T18:30:00Z') // 19:30, winter time
    expect(await where()).toBe('https://example.com/menu/dinner')
  },
  giveaway: async (where) => {
    const answers: (string | number | null)[] = []
    for (let i = 0; i < 6; i++)
      answers.push(...(await Promise.all(Array.from({ length: 85 }, () => where()))))
    expect(answers.filter((a) => a === 'https://example.com/giveaway')).toHaveLength(500)
    expect(answers.filter((a) => a === 'https://example.com/giveaway/all-gone')).toHaveLength(10)
  },
  'expiring-campaign': async (where, clock) => {
    clock.set('2026-12-31T22:59:58Z')
    expect(await where()).toBe(
      'https://example.com/winter-sale?utm_source=poster&utm_medium=print&utm_campaign=winter%20sale%202026',
    )
    clock.set('2026-12-31T22:59:59Z')
    expect(await where()).toBe('https://example.com/winter-sale/ended')
  },
}

describe('the recipes of docs/redirect-rules.md', () => {
  let server: TestServer
  const clock = new ManualClock(new Date(T0))
  const dir = mkdtempSync(join(tmpdir(), 'qrctl-recipes-'))

  beforeAll(async () => {
    buildCli()
    server = await startServer({ clock, env: UNLIMITED })
    // The SDK recipe runs from a scratch folder that resolves packages as the repository does.
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
    writeFileSync(join(dir, 'qrctl'), `#!/bin/sh\nexec "${process.execPath}" "${MAIN}" "$@"\n`)
    chmodSync(join(dir, 'qrctl'), 0o755)
  }, 180_000)
  afterAll(async () => {
    await server?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const all = recipes()
  it('has each of the five recipes in all three forms', () => {
    expect(all.map((r) => `${r.name} (${r.form})`).sort()).toEqual(
      Object.keys(CHECKS)
        .flatMap((name) => ['curl', 'sdk', 'cli'].map((form) => `${name} (${form})`))
        .sort(),
    )
  })

  it.each(all.map((r) => [`${r.name} (${r.form})`, r] as const))(
    '%s creates a code that does what it says',
    async (_label, recipe) => {
      clock.set(T0)
      const account = await server.createAccount()
      const env = {
        PATH: `${dir}:${process.env.PATH ?? ''}`,
        HOME: dir,
        QRCTL_BASE_URL: server.baseUrl,
        QRCTL_API_KEY: account.apiKey,
        NO_COLOR: '1',
      }
      if (recipe.form === 'sdk') {
        const file = join(dir, `${recipe.name}.mts`)
        writeFileSync(file, recipe.code)
        await run(process.execPath, ['--import', 'tsx', '--conditions=source', file], {
          cwd: dir,
          env,
          timeout: 60_000,
        })
      } else {
        await run('bash', ['-euo', 'pipefail', '-c', recipe.code], { cwd: dir, env, timeout: 60_000 })
      }
      const listed = await api(server, account.apiKey).get('/qr-codes')
      const codes = listed.body.data as QrCode[]
      expect(codes).toHaveLength(1)
      const shortUrl = codes[0]?.shortUrl as string
      const where: Where = async (ua = AGENTS.windows.ua, headers = {}) => {
        const res = await fetch(shortUrl, { redirect: 'manual', headers: { 'user-agent': ua, ...headers } })
        await res.arrayBuffer()
        return res.status === 302 ? res.headers.get('location') : res.status
      }
      try {
        await CHECKS[recipe.name]?.(where, clock)
      } finally {
        clock.set(T0)
      }
    },
  )
})
