import type { AccountAnalytics } from '@qrctl/sdk'
import { AnalyticsView, type WindowParams } from '../analytics-view.js'
import { field, h, select } from '../dom.js'
import type { PageCtx } from '../router.js'
import { bars } from '../widgets.js'

/** Analytics (DESIGN §16, §19): every code of the account (or one tag's), with a CSV export link. */
export async function renderAnalytics(ctx: PageCtx): Promise<void> {
  const { qrctl, alerts, main } = ctx
  ctx.heading('Analytics')
  const tag = select({ name: 'tag' }, [['', 'All codes']], '')
  let last: { params: WindowParams; answer: AccountAnalytics } | undefined

  const exportLink = h('a', { href: '#export', class: 'button secondary' }, 'Export CSV')
  const view = new AnalyticsView(
    alerts,
    async (params) => {
      const full = { ...params, ...(tag.value && { tag: [tag.value] }) }
      const answer = await qrctl.analytics.get(full)
      last = { params: full, answer }
      resetExport()
      return answer
    },
    (answer) => {
      const top = (answer as AccountAnalytics).topCodes ?? []
      const section = bars('Top codes', top)
      // Each code's name leads to its page.
      section.querySelectorAll('li').forEach((item, i) => {
        const code = top[i]
        const label = item.querySelector('.bar-label > span')
        if (code && label) label.replaceChildren(h('a', { href: `/app/codes/${code.id}` }, code.name))
      })
      return [section]
    },
    [field('Tag', tag)],
  )

  let exportUrl: string | undefined
  function resetExport(): void {
    ctx.blobs.revoke(exportUrl)
    exportUrl = undefined
    exportLink.href = '#export'
    exportLink.removeAttribute('download')
  }
  // The export needs the CSRF header like every API call, so the file is fetched through the
  // SDK and handed to the browser as a blob: URL, then the link downloads it.
  exportLink.addEventListener('click', async (event) => {
    if (exportUrl) return
    event.preventDefault()
    if (!last?.answer.from || !last.answer.to) return
    alerts.status('Preparing the CSV…')
    try {
      const { from, to } = last.answer
      const stream = await qrctl.analytics.export({
        from,
        to,
        timezone: last.params.timezone,
        ...(tag.value && { tag: [tag.value] }),
      })
      const blob = await new Response(stream).arrayBuffer()
      exportUrl = ctx.blobs.make(new Uint8Array(blob), 'text/csv')
      exportLink.href = exportUrl
      exportLink.download = `scans-${from}-to-${to}.csv`
      alerts.status('The CSV is ready.')
      exportLink.click()
    } catch (error) {
      alerts.error(error)
    }
  })

  main.append(view.controls, h('p', { class: 'actions' }, exportLink), view.result)
  tag.addEventListener('change', () => resetExport())
  try {
    const tags = await qrctl.tags.list()
    tag.append(...tags.map((t) => h('option', { value: t.name }, t.name)))
  } catch (error) {
    alerts.error(error)
  }
  await view.refresh()
}
