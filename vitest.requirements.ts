import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'

/**
 * Tests in every package that need something outside Node (a browser, the QR decoders ZBar and
 * poppler, PostgreSQL, Redis) ask here before they skip. A local run without it skips them and
 * says, on stderr, what is missing and how to get it; under `QRCTL_REQUIRE_ALL_TESTS=1` (set by
 * .ci/run) nothing skips: the tests run and fail for want of it, and vitest.shared.ts fails the
 * run if any test was skipped at all.
 */
export const requireAll = process.env.QRCTL_REQUIRE_ALL_TESTS === '1'

const told = new Set<string>()

/** Says once per process that `what` is missing and how to install or enable it. */
function tell(what: string, fix: string): void {
  if (told.has(what)) return
  told.add(what)
  process.stderr.write(`SKIPPED for want of ${what}: ${fix}\n`)
}

/**
 * True when the tests that need `what` should be skipped: it is unavailable and this is not a
 * run that requires everything. `fix` says how to install or enable it.
 * @example describe.skipIf(missing('chromium', hasChromium, 'apt-get install chromium'))(…)
 */
export function missing(what: string, available: boolean, fix: string): boolean {
  if (available) return false
  if (requireAll) {
    process.stderr.write(`QRCTL_REQUIRE_ALL_TESTS=1 and ${what} is missing (${fix}): these tests will fail\n`)
    return false
  }
  tell(what, fix)
  return true
}

/** True when `command` is an executable file in one of PATH's directories. */
export function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK)
      return true
    } catch {
      return false
    }
  })
}

/** `missing` for a command from a Debian package, e.g. `missingCommand('zbarimg', 'zbar-tools')`. */
export function missingCommand(command: string, debianPackage: string): boolean {
  return missing(command, onPath(command), `apt-get install ${debianPackage}`)
}
