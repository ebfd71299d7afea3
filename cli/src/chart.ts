/** Block-character charts for a terminal. */

const VERTICAL = ['', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const
const HORIZONTAL = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉', '█'] as const

export interface DayCount {
  date: string
  count: number
}

/** Sums consecutive days into buckets of `size` days, keeping each bucket's first date. */
function bucket(days: readonly DayCount[], size: number): DayCount[] {
  const buckets: DayCount[] = []
  for (let i = 0; i < days.length; i += size) {
    const slice = days.slice(i, i + size)
    buckets.push({ date: slice[0]?.date ?? '', count: slice.reduce((sum, d) => sum + d.count, 0) })
  }
  return buckets
}

/**
 * A column chart of counts per day, `height` rows tall, drawn with eighth blocks so a bar's top
 * has 8 steps per row. Days are summed into wider buckets when there are more days than columns.
 * Returns the lines, axis and date labels included.
 */
export function dayChart(days: readonly DayCount[], width: number, height = 8): string[] {
  if (days.length === 0) return []
  const max = Math.max(...days.map((d) => d.count))
  const labelWidth = String(max).length
  const room = Math.max(10, width - labelWidth - 2)
  const perBucket = Math.ceil(days.length / room)
  const bars = bucket(days, perBucket)
  const top = Math.max(...bars.map((b) => b.count))
  // Wide columns with a gap for short periods, one character per bucket for long ones.
  const columnWidth = Math.max(1, Math.min(3, Math.floor(room / bars.length)))
  const barWidth = columnWidth > 1 ? columnWidth - 1 : 1
  const eighths = bars.map((b) => (b.count === 0 ? 0 : Math.max(1, Math.round((b.count / top) * height * 8))))
  const lines: string[] = []
  for (let row = height - 1; row >= 0; row--) {
    const label = row === height - 1 ? String(top) : row === 0 ? '0' : ''
    const cells = eighths.map((e) => {
      const fill = Math.min(8, Math.max(0, e - row * 8))
      return (VERTICAL[fill] || ' ').repeat(barWidth).padEnd(columnWidth)
    })
    lines.push(`${label.padStart(labelWidth)} │${cells.join('').trimEnd()}`)
  }
  const axisWidth = bars.length * columnWidth
  lines.push(`${' '.repeat(labelWidth)} └${'─'.repeat(axisWidth)}`)
  const first = days[0]?.date ?? ''
  const last = days.at(-1)?.date ?? ''
  const gap = Math.max(1, axisWidth - first.length - last.length)
  lines.push(`${' '.repeat(labelWidth + 2)}${first === last ? first : `${first}${' '.repeat(gap)}${last}`}`)
  if (perBucket > 1) lines.push(`${' '.repeat(labelWidth + 2)}(each column: ${perBucket} days)`)
  return lines
}

/** A horizontal bar `width` characters long at most, in eighths of a character. */
export function hbar(value: number, max: number, width: number): string {
  if (max <= 0 || value <= 0) return ''
  const eighths = Math.max(1, Math.round((value / max) * width * 8))
  return `${'█'.repeat(Math.floor(eighths / 8))}${HORIZONTAL[eighths % 8]}`
}
