#!/usr/bin/env node
// The command itself is built to dist/. This file is committed so that `npm install` can link
// the `qrctl` bin before anything is built; it only loads the build, and says in one line what
// to run when the build (its own, or a workspace package's it imports) is missing.
import { existsSync } from 'node:fs'

const hint =
  'qrctl is not built: run `npm run build -w qrctl` in the qrctl checkout (it builds the SDK, contract and renderer too)\n'
const main = new URL('../dist/main.js', import.meta.url)
if (!existsSync(main)) {
  process.stderr.write(hint)
  process.exit(1)
}
try {
  await import(main.href)
} catch (error) {
  // A workspace dependency without its dist/ (e.g. only the CLI was compiled).
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && /[\\/]dist[\\/]|@qrctl[\\/]/.test(String(error.message))) {
    process.stderr.write(hint)
    process.exit(1)
  }
  throw error
}
