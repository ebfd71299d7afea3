// The dashboard (DESIGN §19): a client of @qrctl/sdk in session mode, routed under /app.
import { createClient } from './api.js'
import { h } from './dom.js'
import { renderAnalytics } from './pages/analytics.js'
import { renderApiKeys } from './pages/api-keys.js'
import { renderCode } from './pages/code.js'
import { renderCodes, renderDeleted } from './pages/codes.js'
import { renderNewCode } from './pages/new-code.js'
import { renderShowcases } from './pages/showcases.js'
import { renderUpload } from './pages/upload.js'
import { renderWebhook, renderWebhooks } from './pages/webhooks.js'
import { type Route, Router } from './router.js'

const UUID = '([0-9a-fA-F-]{36})'

const routes: Route[] = [
  { path: /^\/app(?:\/codes)?$/, section: '/app', render: renderCodes },
  { path: /^\/app\/codes\/new$/, section: '/app/codes/new', render: renderNewCode },
  { path: /^\/app\/codes\/deleted$/, section: '/app', render: renderDeleted },
  { path: /^\/app\/codes\/upload$/, section: '/app', render: renderUpload },
  { path: new RegExp(`^/app/codes/${UUID}$`), section: '/app', render: renderCode },
  { path: /^\/app\/analytics$/, section: '/app/analytics', render: renderAnalytics },
  { path: /^\/app\/showcases$/, section: '/app/showcases', render: renderShowcases },
  { path: /^\/app\/webhooks$/, section: '/app/webhooks', render: renderWebhooks },
  { path: new RegExp(`^/app/webhooks/${UUID}$`), section: '/app/webhooks', render: renderWebhook },
  { path: /^\/app\/api-keys$/, section: '/app/api-keys', render: renderApiKeys },
]

const notFound: Route = {
  path: /$^/,
  section: '',
  render: (ctx) => {
    ctx.heading('Page not found')
    ctx.main.append(
      h('p', null, 'There is no such page in the dashboard.'),
      h('p', null, h('a', { href: '/app' }, 'Go to the QR codes')),
    )
  },
}

new Router(createClient(), routes, notFound).start()
