import { defineConfig, mergeConfig } from 'vitest/config'
import { sharedConfig } from '../vitest.shared.js'

export default mergeConfig(
  sharedConfig,
  defineConfig({
    test: {
      // Each file starts its own servers; two at a time fit the two cores.
      maxWorkers: 2,
      // Every /api/v1 answer a test receives is checked against the OpenAPI document.
      setupFiles: ['./support/validate-responses.ts'],
      testTimeout: 60_000,
    },
  }),
)
