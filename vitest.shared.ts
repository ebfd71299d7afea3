import { defineConfig } from 'vitest/config'
import type { Reporter } from 'vitest/node'

/**
 * With QRCTL_REQUIRE_ALL_TESTS=1 (.ci/run sets it) a run in which any test was skipped fails:
 * a tool or service CI should have (Chromium, PostgreSQL, Redis) must never quietly go missing.
 */
const failOnSkipped: Reporter = {
  onTestRunEnd(testModules) {
    const skipped = testModules.flatMap((module) => [...module.children.allTests('skipped')])
    if (skipped.length === 0) return
    process.stderr.write(`\nQRCTL_REQUIRE_ALL_TESTS=1, but ${skipped.length} test(s) were skipped:\n`)
    for (const test of skipped.slice(0, 20))
      process.stderr.write(`  ${test.module.moduleId} > ${test.fullName}\n`)
    process.exitCode = 1
  },
}

/** Every package's tests run straight from TypeScript source through the `source` export condition. */
export const sharedConfig = defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: process.env.QRCTL_REQUIRE_ALL_TESTS === '1' ? ['default', failOnSkipped] : ['default'],
  },
})
