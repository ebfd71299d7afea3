import { defineConfig } from 'vitest/config'

/** Every package's tests run straight from TypeScript source through the `source` export condition. */
export const sharedConfig = defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: { testTimeout: 30_000, hookTimeout: 60_000, pool: 'forks' },
})
