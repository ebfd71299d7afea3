import type { BrowserContext, Page } from 'playwright-core'
import { startServer, type TestServer } from '../support/server.js'

/** A server for the dashboard's browser tests: generous rate limit, webhooks allowed to loopback. */
export function startDashboardServer(): Promise<TestServer> {
  return startServer({
    env: { RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_RETRY_DELAYS: '1' },
  })
}

/** What went wrong on a page: console errors (CSP refusals among them), script errors, CSP violations. */
export interface Trouble {
  consoleErrors: string[]
  pageErrors: string[]
  cspViolations: string[]
}

/**
 * Records every console error, uncaught script error and CSP violation of the context's pages.
 * The violation listener is added before any page script runs (init scripts bypass the CSP).
 */
export async function watch(context: BrowserContext): Promise<Trouble> {
  const trouble: Trouble = { consoleErrors: [], pageErrors: [], cspViolations: [] }
  await context.exposeBinding('__reportCspViolation', (_source, text: string) => {
    trouble.cspViolations.push(text)
  })
  await context.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (e) => {
      window.__reportCspViolation(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sample || ''))
    })`,
  })
  const onPage = (page: Page) => {
    page.on('console', (message) => {
      if (message.type() === 'error') trouble.consoleErrors.push(`${page.url()}: ${message.text()}`)
    })
    page.on('pageerror', (error) => trouble.pageErrors.push(`${page.url()}: ${error.message}`))
  }
  for (const page of context.pages()) onPage(page)
  context.on('page', onPage)
  return trouble
}

/** Signs in with the form of /app/login, as a person would: label "API key", button "Sign in". */
export async function signIn(page: Page, server: TestServer, apiKey = server.apiKey): Promise<void> {
  await page.goto(`${server.baseUrl}/app/login`)
  await page.getByLabel('API key').fill(apiKey)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL(`${server.baseUrl}/app`)
  await page.getByRole('heading', { level: 1, name: 'QR codes' }).waitFor()
}
