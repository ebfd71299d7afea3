import { createHash } from 'node:crypto'
import { TEMPLATES, type Template } from '@qrctl/contract'
import { PALETTES, paletteCss } from './showcase-pages.colors.js'

/**
 * The showcase stylesheets: one static file per template, the shared layout first, then the
 * template's palette and look. Kept as strings so the build ships them with the code; served
 * from memory under a content hash with a year's cache.
 */

const SANS = 'system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans",sans-serif'

const BASE = `*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%;background:var(--bg-2) linear-gradient(160deg,var(--bg),var(--bg-2))}
body{margin:0;min-height:100vh;min-height:100dvh;display:flex;flex-direction:column;align-items:center;
color:var(--text);
font-family:${SANS};font-size:1rem;line-height:1.55;-webkit-font-smoothing:antialiased}
img{max-width:100%}
a{color:inherit}
a:focus-visible{outline:3px solid var(--text);outline-offset:3px}
.backdrop{position:fixed;inset:0;width:100%;height:100%;object-fit:cover;z-index:-1}
.page{width:100%;max-width:34rem;padding:2.5rem 1rem 1rem;flex:1 0 auto}
.card{background:var(--surface);padding:2rem 1.25rem;border-radius:var(--radius-card,0)}
.has-backdrop .card{border-radius:1.25rem;box-shadow:0 12px 40px rgb(0 0 0/.25)}
.hero{text-align:center}
.logo{display:block;width:88px;height:88px;margin:0 auto 1.25rem;object-fit:cover;border-radius:var(--radius-logo,50%);
background:var(--surface)}
h1{margin:0 0 .5rem;font-size:clamp(1.75rem,7vw,2.5rem);line-height:1.15;letter-spacing:-.02em;overflow-wrap:anywhere}
.description{margin:0 auto;max-width:30rem;color:var(--muted);font-size:1.0625rem;white-space:pre-line;overflow-wrap:anywhere}
.actions{display:flex;flex-direction:column;gap:.75rem;margin:2rem 0 0;padding:0;list-style:none}
.button{display:flex;align-items:center;justify-content:center;min-height:3.25rem;padding:.75rem 1.25rem;
border:2px solid var(--primary);border-radius:var(--radius-button,.75rem);background:var(--primary);color:var(--on-primary);
font-weight:650;font-size:1.0625rem;text-align:center;text-decoration:none;overflow-wrap:anywhere;
transition:transform .15s ease,box-shadow .15s ease}
.button:hover{transform:translateY(-1px);box-shadow:0 6px 16px rgb(0 0 0/.15)}
.button-quiet{background:transparent;color:var(--text);border-color:currentColor}
.qr{display:flex;flex-direction:column;align-items:center;gap:1rem;margin:2.25rem 0 0;padding:1.5rem 1rem;
border-radius:var(--radius-card,0);background:var(--panel)}
.qr-title{margin:0;font-size:.8125rem;font-weight:700;letter-spacing:.08em;text-transform:uppercase;color:var(--muted)}
.qr-image{display:block;width:184px;height:184px;padding:10px;background:#fff;border-radius:.75rem;
box-shadow:0 0 0 1px rgb(0 0 0/.08)}
.qr .button{min-height:2.75rem;font-size:1rem;padding:.5rem 1.25rem}
.social{display:flex;flex-wrap:wrap;justify-content:center;gap:.5rem;margin:2rem 0 0;padding:0;list-style:none}
.social a{display:inline-flex;align-items:center;gap:.5rem;min-height:2.75rem;max-width:100%;padding:.375rem 1rem .375rem .375rem;
border-radius:999px;background:var(--secondary);color:var(--on-secondary);font-weight:600;text-decoration:none;overflow-wrap:anywhere}
.social a:hover{text-decoration:underline}
.initial{display:inline-flex;flex:none;align-items:center;justify-content:center;width:2rem;height:2rem;border-radius:50%;
background:var(--primary);color:var(--on-primary);font-size:.875rem;font-weight:700;text-transform:uppercase}
.branding{width:100%;padding:1.5rem 1rem 2rem;color:var(--muted);font-size:.875rem;text-align:center}
.has-backdrop .branding{color:var(--text)}
.has-backdrop .branding span{background:var(--surface);padding:.25rem .75rem;border-radius:999px}
.branding strong{font-weight:700;letter-spacing:.01em}
.notice{text-align:center}
.notice h1{font-size:1.75rem}
.visually-hidden{position:absolute!important;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);
white-space:nowrap;border:0}
@media (min-width:40rem){.page{padding-top:4rem}.card{padding:2.75rem 2.5rem}}
@media (prefers-reduced-motion:reduce){.button{transition:none}.button:hover{transform:none}}
`

const LOOKS: Record<Template, string> = {
  minimal: `.card{border-bottom:1px solid color-mix(in srgb,var(--text) 15%,transparent)}
.has-backdrop .card{border-bottom:0}
.button{border-radius:.5rem}
.qr{border:1px solid color-mix(in srgb,var(--text) 15%,transparent);border-radius:.75rem}
`,
  modern: `:root{--radius-card:1.5rem;--radius-button:999px;--radius-logo:1.25rem}
.card{box-shadow:0 24px 60px rgb(49 46 129/.18),0 2px 6px rgb(49 46 129/.08)}
h1{font-weight:800;letter-spacing:-.03em}
.button{box-shadow:0 8px 20px rgb(79 70 229/.3)}
.button-quiet{box-shadow:none}
`,
  bold: `:root{--radius-button:0;--radius-logo:0}
body{font-family:"Arial Black","Helvetica Neue",Arial,${SANS}}
.card{border:4px solid var(--text);box-shadow:8px 8px 0 var(--text)}
h1{font-size:clamp(2.25rem,11vw,3.5rem);font-weight:900;text-transform:uppercase;letter-spacing:-.01em;line-height:1}
.description{font-family:${SANS};font-weight:600;color:var(--text)}
.logo{border:4px solid var(--text)}
.button{border:3px solid var(--text);text-transform:uppercase;letter-spacing:.04em;font-weight:900}
.button:hover{transform:translate(-2px,-2px);box-shadow:4px 4px 0 var(--text)}
.button-quiet{background:#fff;color:#111;border-color:#111;box-shadow:5px 5px 0 #111}
.button-quiet:hover{box-shadow:7px 7px 0 #111}
.qr{border:3px dashed var(--text)}
.qr-title{color:var(--text)}
.social a{border:3px solid var(--text);border-radius:0;font-family:${SANS};font-weight:800}
.initial{border-radius:0}
.branding{color:var(--text);font-family:${SANS}}
`,
  professional: `:root{--radius-card:.5rem;--radius-button:.375rem;--radius-logo:.5rem}
html{background:var(--bg)}
body::before{content:"";position:absolute;top:0;left:0;right:0;height:13rem;background:var(--primary);z-index:-1}
.has-backdrop::before{display:none}
.card{box-shadow:0 1px 3px rgb(15 23 42/.12),0 10px 30px rgb(15 23 42/.08);border-top:4px solid var(--primary)}
h1{font-family:Georgia,"Times New Roman",serif;font-weight:700;letter-spacing:0}
.hero{text-align:left}
.logo{margin:0 0 1.25rem}
.description{margin:0}
.actions{margin-top:1.75rem}
.social{justify-content:flex-start}
.social a{border-radius:.375rem}
.initial{border-radius:.25rem}
@media (min-width:64rem){.page{max-width:60rem}
.card{display:grid;grid-template-columns:minmax(0,1fr) 16rem;grid-template-areas:"hero qr" "actions qr" "social qr";column-gap:3rem;align-items:start}
.hero{grid-area:hero}.actions{grid-area:actions}.social{grid-area:social}.qr{grid-area:qr;margin-top:0}}
`,
  dark: `:root{--radius-card:1.25rem;--radius-button:.875rem;--radius-logo:50%}
html{color-scheme:dark}
.card{border:1px solid rgb(255 255 255/.08);box-shadow:0 0 0 1px rgb(0 0 0/.4),0 30px 80px rgb(0 0 0/.5)}
h1{font-weight:750}
.logo{box-shadow:0 0 0 3px var(--surface),0 0 0 5px var(--primary)}
.button{box-shadow:0 0 24px color-mix(in srgb,var(--primary) 35%,transparent)}
.button-quiet{box-shadow:none}
.social a{border:1px solid rgb(255 255 255/.12)}
`,
}

function paletteDefaults(template: Template): string {
  return paletteCss(PALETTES[template])
}

export interface Stylesheet {
  template: Template
  css: string
  /** Content hash, short: part of the URL so a new deploy's pages never get an old file. */
  version: string
  etag: string
}

function build(template: Template): Stylesheet {
  const css = `${paletteDefaults(template)}\n${BASE}${LOOKS[template]}`
  const hash = createHash('sha256').update(css).digest('base64url')
  return { template, css, version: hash.slice(0, 12), etag: `"${hash.slice(0, 27)}"` }
}

export const STYLESHEETS: Record<Template, Stylesheet> = Object.fromEntries(
  TEMPLATES.map((template) => [template, build(template)]),
) as Record<Template, Stylesheet>

/** Where a template's stylesheet is served: under `/s/_assets/`, a path no slug can take. */
export function stylesheetPath(template: Template): string {
  return `/s/_assets/${template}.${STYLESHEETS[template].version}.css`
}
