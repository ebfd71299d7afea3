#!/usr/bin/env node
// The command itself is built to dist/. This file is committed so that `npm install` can link
// the `qrctl` bin before anything is built; it only loads the build.
import { existsSync } from 'node:fs'

const main = new URL('../dist/main.js', import.meta.url)
if (!existsSync(main)) {
  process.stderr.write('qrctl is not built yet: run `npm run build` in the qrctl checkout first\n')
  process.exit(1)
}
await import(main.href)
