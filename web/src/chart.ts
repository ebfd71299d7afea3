import uPlot from 'uplot'
import { formatNumber, h, plural, uid } from './dom.js'
import { tableWrap } from './widgets.js'

export interface DayCount {
  date: string
  count: number
}

const dayLabel = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
})

/** `YYYY-MM-DD` as uPlot's x value: seconds at that day's UTC midnight (drawn in UTC). */
function dayToSeconds(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / 1000
}

function formatDay(date: string): string {
  return dayLabel.format(new Date(`${date}T00:00:00Z`))
}

/**
 * "Scans per day" (DESIGN §19): a uPlot chart named by its figure's caption, with its text
 * alternative beside it: the total "N scans" and a table of day and count.
 */
export function scansPerDay(
  days: readonly DayCount[],
  total: number,
): { element: HTMLElement; destroy(): void } {
  const captionId = uid('chart')
  const canvasHolder = h('div', {
    class: 'chart',
    role: 'img',
    'aria-label': `Chart of scans per day, ${days.length} days; the table lists each day.`,
  })
  const table = h(
    'table',
    { class: 'days' },
    h('caption', null, 'Scans per day'),
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Day'), h('th', { scope: 'col' }, 'Scans'))),
    h(
      'tbody',
      null,
      [...days]
        .reverse()
        .map((day) =>
          h(
            'tr',
            null,
            h('th', { scope: 'row' }, h('time', { datetime: day.date }, formatDay(day.date))),
            h('td', { class: 'number' }, formatNumber(day.count)),
          ),
        ),
    ),
  )
  const element = h(
    'figure',
    { class: 'scans-per-day', 'aria-labelledby': captionId },
    h('figcaption', { id: captionId }, 'Scans per day'),
    h('p', { class: 'total' }, plural(total, 'scan')),
    canvasHolder,
    h(
      'details',
      null,
      h('summary', null, 'Scans per day as a table'),
      tableWrap(table, 'Scans per day table'),
    ),
  )

  let plot: uPlot | undefined
  let observer: ResizeObserver | undefined
  const draw = () => {
    const width = Math.max(240, Math.floor(canvasHolder.clientWidth))
    if (plot) {
      plot.setSize({ width, height: 220 })
      return
    }
    plot = new uPlot(
      {
        width,
        height: 220,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
        scales: {
          x: { time: true },
          y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] },
        },
        axes: [
          { stroke: '#4a515c', grid: { stroke: '#e3e6ea' } },
          {
            stroke: '#4a515c',
            grid: { stroke: '#e3e6ea' },
            values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? formatNumber(t) : '')),
          },
        ],
        series: [
          {},
          {
            label: 'Scans',
            stroke: '#1a56c4',
            width: 2,
            fill: 'rgba(26, 86, 196, 0.12)',
            points: { show: days.length <= 45, size: 5 },
          },
        ],
      },
      [days.map((day) => dayToSeconds(day.date)), days.map((day) => day.count)],
      canvasHolder,
    )
  }
  // Drawn once the figure is in the page and has a width.
  requestAnimationFrame(() => {
    if (!canvasHolder.isConnected) return
    draw()
    observer = new ResizeObserver(() => draw())
    observer.observe(canvasHolder)
  })
  return {
    element,
    destroy: () => {
      observer?.disconnect()
      plot?.destroy()
    },
  }
}
