import { type Counter, collectDefaultMetrics, type Histogram, Registry } from 'prom-client'

/**
 * The one Prometheus registry of the process. It sits below both `http/` and `modules/`, so a
 * module can count its own events (scans, buffers) without importing the transport layer.
 */
export const registry = new Registry()
collectDefaultMetrics({ register: registry })

/** prom-client 15's own entry for one label set (lib/histogram.js, lib/counter.js). */
interface HistogramEntry {
  bucketValues: Record<number, number>
  sum: number
  count: number
}
interface CounterEntry {
  value: number
}
type Entries<E> = { hashMap: Record<string, E> }

/**
 * The entry prom-client keeps for `labels`, found after a first update through its public API
 * created it, and found again when a reset replaced it.
 */
function entryOf<E extends { labels?: object }>(metric: Entries<E>, labels: Record<string, string>) {
  const same = (entry: E) => {
    const own = (entry.labels ?? {}) as Record<string, unknown>
    const keys = Object.keys(labels)
    return Object.keys(own).length === keys.length && keys.every((k) => own[k] === labels[k])
  }
  for (const [hash, entry] of Object.entries(metric.hashMap)) if (same(entry)) return { hash, entry }
  return undefined
}

/**
 * One series of a histogram, bound once, whose `observe` is a bucket search and three
 * additions. prom-client's `labels(…).observe()` validates and hashes the labels again on
 * every call: 1.5–3 µs, more than the rest of a redirect's bookkeeping (2026-11-24). The
 * numbers live in prom-client's own entry, so `/metrics`, resets and the cluster aggregation
 * see one set; metrics.test.ts compares the output with prom-client's own for the same
 * observations, so an upgrade that changes these internals fails there.
 */
export function histogramSeries<T extends string>(
  histogram: Histogram<T>,
  labels: Record<T, string>,
): (value: number) => void {
  const metric = histogram as unknown as Entries<HistogramEntry & { labels: object }> & {
    upperBounds: number[]
  }
  let bound: { hash: string; entry: HistogramEntry } | undefined
  // The buckets' keys as the strings they are: an object indexed by a fractional number
  // converts it to a string on every access.
  const bounds = metric.upperBounds
  const keys = bounds.map(String)
  return (value) => {
    if (!bound || metric.hashMap[bound.hash] !== bound.entry || !Number.isFinite(value)) {
      histogram.observe(labels, value)
      bound = entryOf(metric, labels)
      return
    }
    const { entry } = bound
    const buckets = entry.bucketValues as Record<string, number>
    for (let i = 0; i < bounds.length; i++)
      if (value <= (bounds[i] as number)) {
        const key = keys[i] as string
        buckets[key] = (buckets[key] ?? 0) + 1
        break
      }
    entry.sum += value
    entry.count += 1
  }
}

/** One series of a counter, bound once, whose `inc` is one addition (see histogramSeries). */
export function counterSeries<T extends string>(counter: Counter<T>, labels: Record<T, string>): () => void {
  const metric = counter as unknown as Entries<CounterEntry & { labels: object }>
  let bound: { hash: string; entry: CounterEntry } | undefined
  return () => {
    if (!bound || metric.hashMap[bound.hash] !== bound.entry) {
      counter.inc(labels)
      bound = entryOf(metric, labels)
      return
    }
    bound.entry.value += 1
  }
}
