import { parseBatchErrors } from '@qrctl/contract'
import { type CsvRow, readCodeCsv } from '../csv.js'
import { field, formatNumber, h, plural } from '../dom.js'
import type { PageCtx } from '../router.js'
import { tableWrap } from '../widgets.js'

const PREVIEW_ROWS = 200

/**
 * "Upload CSV" (DESIGN §19): the file is read here, every row is checked by the server
 * (`dryRun`, nothing created), each row's errors are shown, then the valid rows are created
 * 100 per request with a progress bar.
 */
export async function renderUpload(ctx: PageCtx): Promise<void> {
  const { qrctl, alerts, main } = ctx
  ctx.heading('Upload CSV')
  const file = h('input', { type: 'file', name: 'file', accept: '.csv,text/csv' })
  const progress = h('progress', { max: 1, value: 0, 'aria-label': 'Upload progress' })
  const progressText = h('span', { class: 'hint' })
  const progressBlock = h('div', { class: 'progress', hidden: true }, progress, progressText)
  const preview = h('section', { class: 'csv-preview', 'aria-label': 'Rows of the file' })
  const upload = h('button', { type: 'button', hidden: true }, 'Upload')
  let rows: CsvRow[] = []
  let validRows: CsvRow[] = []

  main.append(
    h(
      'p',
      null,
      'Columns: name, contentType, content (required), type, targetUrl, externalId, tags (separated by ;), foregroundColor, backgroundColor, errorCorrectionLevel, margin. The same format as ',
      h('code', null, 'qrctl batch'),
      '.',
    ),
    h('form', { onsubmit: (e: Event) => e.preventDefault() }, field('CSV file', file, { name: 'file' })),
    progressBlock,
    preview,
    h('p', { class: 'actions' }, upload),
  )

  const setProgress = (done: number, total: number, label: string) => {
    progressBlock.hidden = false
    progress.max = Math.max(1, total)
    progress.value = done
    progressText.textContent = `${label}: ${formatNumber(done)} of ${formatNumber(total)} rows`
  }

  file.addEventListener('change', async () => {
    alerts.clear()
    preview.replaceChildren()
    upload.hidden = true
    const chosen = file.files?.[0]
    if (!chosen) return
    const read = readCodeCsv(await chosen.text())
    if ('error' in read) {
      alerts.message(read.error)
      return
    }
    rows = read.rows
    try {
      const check = await qrctl.qrCodes.createMany(
        rows.map((row) => row.input),
        { dryRun: true, onProgress: (p) => setProgress(p.done, p.total, 'Checking') },
      )
      if (!ctx.isCurrent()) return
      const problems = new Map<number, string[]>()
      for (const error of check.errors) {
        for (const item of parseBatchErrors(error)) {
          const list = problems.get(item.index) ?? []
          list.push(item.field ? `${item.field}: ${item.message}` : item.message)
          problems.set(item.index, list)
        }
      }
      validRows = rows.filter((_, index) => !problems.has(index))
      showPreview(problems)
    } catch (error) {
      alerts.error(error)
    }
  })

  function showPreview(problems: Map<number, string[]>): void {
    const bad = rows.length - validRows.length
    const summary = `${plural(rows.length, 'row')} read: ${formatNumber(validRows.length)} valid, ${plural(bad, 'row')} with errors.`
    if (bad > 0)
      alerts.message(
        `${plural(bad, 'row')} of the file ${bad === 1 ? 'has' : 'have'} errors; ${bad === 1 ? 'it' : 'they'} will not be uploaded. Fix the file and choose it again, or upload the valid rows.`,
      )
    const table = h(
      'table',
      null,
      h('caption', null, 'Rows of the file'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['Line', 'Name', 'Content type', 'Content', 'Check'].map((text) => h('th', { scope: 'col' }, text)),
        ),
      ),
      h(
        'tbody',
        null,
        rows.slice(0, PREVIEW_ROWS).map((row, index) => {
          const errors = problems.get(index)
          return h(
            'tr',
            { class: errors ? 'row-error' : null },
            h('td', { class: 'number' }, String(row.line)),
            h('th', { scope: 'row' }, row.input.name ?? ''),
            h('td', null, row.input.contentType ?? ''),
            h('td', { class: 'truncate' }, row.input.content ?? ''),
            h(
              'td',
              null,
              errors
                ? h(
                    'ul',
                    { class: 'errors' },
                    errors.map((e) => h('li', null, e)),
                  )
                : 'OK',
            ),
          )
        }),
      ),
    )
    preview.replaceChildren(
      h('p', null, summary),
      tableWrap(table, 'Rows of the file'),
      rows.length > PREVIEW_ROWS
        ? h('p', { class: 'hint' }, `The first ${PREVIEW_ROWS} rows are shown.`)
        : '',
    )
    upload.textContent = `Upload ${plural(validRows.length, 'valid row')}`
    upload.hidden = validRows.length === 0
  }

  upload.addEventListener('click', async () => {
    alerts.clear()
    upload.disabled = true
    file.disabled = true
    try {
      const result = await qrctl.qrCodes.createMany(
        validRows.map((row) => row.input),
        { onProgress: (p) => setProgress(p.done, p.total, 'Uploading') },
      )
      if (!ctx.isCurrent()) return
      upload.hidden = true
      preview.replaceChildren(
        h('p', null, `${plural(result.created, 'code')} created.`),
        result.errors.length > 0
          ? h(
              'ul',
              { class: 'errors' },
              result.errors.map((e) => h('li', null, e)),
            )
          : '',
        h('p', null, h('a', { href: '/app' }, 'See the QR codes')),
      )
      alerts.status(`${plural(result.created, 'code')} created.`)
    } catch (error) {
      alerts.error(error)
    } finally {
      upload.disabled = false
      file.disabled = false
    }
  })
}
