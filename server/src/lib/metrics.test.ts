import { Counter, Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { counterSeries, histogramSeries } from './metrics.js'

const labelNames = ['method', 'route'] as const
const buckets = [0.001, 0.01, 0.1, 1]

/** The same metric twice in one registry: one fed through prom-client, one through the series. */
function pair<M>(make: (name: string, registers: Registry[]) => M) {
  const registry = new Registry()
  return { registry, theirs: make('theirs', [registry]), ours: make('ours', [registry]) }
}

async function text(registry: Registry, name: string, as: string): Promise<string> {
  return (await registry.getSingleMetricAsString(name)).replaceAll(name, as)
}

describe('histogramSeries', () => {
  const values = [0, 0.0005, 0.001, 0.002, 0.01, 0.5, 1, 3, 42]
  const make = (name: string, registers: Registry[]) =>
    new Histogram({ name, help: 'h', labelNames, buckets, registers })

  it('gives /metrics what prom-client gives for the same observations, per label set', async () => {
    const { registry, theirs, ours } = pair(make)
    const get = { method: 'GET', route: '/r/:shortCode' }
    const post = { method: 'POST', route: '/api/v1/qr-codes' }
    const ourGet = histogramSeries(ours, get)
    const ourPost = histogramSeries(ours, post)
    for (const v of values) {
      theirs.labels(get).observe(v)
      ourGet(v)
      theirs.labels(post).observe(v / 2)
      ourPost(v / 2)
    }
    const expected = await text(registry, 'theirs', 'x')
    expect(expected).toContain('x_count{method="GET",route="/r/:shortCode"} 9')
    expect(await text(registry, 'ours', 'x')).toBe(expected)
  })

  it('starts again after a reset', async () => {
    const { registry, theirs, ours } = pair(make)
    const labels = { method: 'GET', route: '/' }
    const observe = histogramSeries(ours, labels)
    for (const v of values) observe(v)
    ours.reset()
    theirs.reset()
    for (const v of values.slice(0, 3)) {
      observe(v)
      theirs.observe(labels, v)
    }
    expect(await text(registry, 'ours', 'x')).toBe(await text(registry, 'theirs', 'x'))
  })

  it('refuses what prom-client refuses', () => {
    const observe = histogramSeries(make('h', []), { method: 'GET', route: '/' })
    observe(1)
    expect(() => observe(Number.NaN)).toThrow(TypeError)
  })
})

describe('counterSeries', () => {
  it('counts what prom-client counts, per label set and across a reset', async () => {
    const make = (name: string, registers: Registry[]) =>
      new Counter({ name, help: 'c', labelNames: ['outcome'] as const, registers })
    const { registry, theirs, ours } = pair(make)
    const counted = counterSeries(ours, { outcome: 'counted' })
    const gone = counterSeries(ours, { outcome: 'gone' })
    for (let i = 0; i < 5; i++) {
      counted()
      theirs.labels('counted').inc()
    }
    gone()
    theirs.labels('gone').inc()
    expect(await text(registry, 'ours', 'x')).toBe(await text(registry, 'theirs', 'x'))
    expect(await text(registry, 'theirs', 'x')).toContain('x{outcome="counted"} 5')
    ours.reset()
    theirs.reset()
    counted()
    theirs.labels('counted').inc()
    expect(await text(registry, 'ours', 'x')).toBe(await text(registry, 'theirs', 'x'))
  })
})
