// Builds the dashboard into dist/: assets/ holds hashed, minified bundles (served with a year's
// cache), index.html names them and carries two placeholders the server fills per request:
// __CSP_NONCE__ (the script's nonce) and __CSRF_TOKEN__ (the session's token, DESIGN §19).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'

const here = dirname(fileURLToPath(import.meta.url))
const dist = join(here, 'dist')
rmSync(dist, { recursive: true, force: true })
mkdirSync(join(dist, 'assets'), { recursive: true })

const result = await esbuild.build({
  entryPoints: [join(here, 'src/main.ts'), join(here, 'src/styles.css')],
  outdir: join(dist, 'assets'),
  entryNames: '[name]-[hash]',
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome110', 'firefox110', 'safari16'],
  conditions: ['browser', 'source'],
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
})

const outputs = Object.keys(result.metafile.outputs).map((file) => basename(file))
const script = outputs.find((file) => file.startsWith('main-') && file.endsWith('.js'))
const style = outputs.find((file) => file.startsWith('styles-') && file.endsWith('.css'))
if (!script || !style) throw new Error(`web build: missing outputs in ${outputs.join(', ')}`)

writeFileSync(
  join(dist, 'index.html'),
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="__CSRF_TOKEN__">
<title>qrctl</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/app/assets/${style}">
<script type="module" nonce="__CSP_NONCE__" src="/app/assets/${script}"></script>
</head>
<body>
<noscript>The qrctl dashboard needs JavaScript.</noscript>
</body>
</html>
`,
)
