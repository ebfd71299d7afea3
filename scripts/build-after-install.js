#!/usr/bin/env node
// Root `prepare` script: after `npm install` (or `npm ci`) in a checkout, build every package so
// `npx qrctl`, `npx qrctl-server` and the SDK work with no further command (issue #13).
// Turbo caches the build, so a second install costs a second or two; `npm install
// --ignore-scripts` skips it.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const turbo = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'turbo.cmd' : 'turbo')
const say = (line) => process.stderr.write(`qrctl: ${line}\n`)

// Installed without dev dependencies, or not inside the monorepo: nothing to build with.
if (!existsSync(join(root, 'turbo.json')) || !existsSync(turbo)) {
  say('turbo is not installed (dev dependencies omitted?): skipping the build after install')
  process.exit(0)
}

say('building the packages (npm run build) …')
const result = spawnSync(turbo, ['run', 'build:self', '--output-logs=errors-only'], {
  cwd: root,
  stdio: 'inherit',
  env: { TURBO_TELEMETRY_DISABLED: '1', ...process.env },
})
if (result.status !== 0) {
  say('the build after install failed; fix the error above, then run `npm run build`')
  process.exit(result.status ?? 1)
}
