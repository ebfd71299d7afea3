import { availableParallelism } from 'node:os'
import { loadConfig } from '@qrctl/server'
import { describe, expect, it } from 'vitest'

describe('configuration from the environment', () => {
  it('has a default for every setting', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: '0.0.0.0',
      database: { dialect: 'sqlite', filename: './data/qrctl.db' },
      publicBaseUrl: 'http://localhost:3000',
      redisUrl: undefined,
      geoipDb: undefined,
      visitorSecret: undefined,
      logLevel: 'info',
      trustProxyHops: 0,
      rateLimitPerMinute: 100,
      shutdownTimeoutMs: 10_000,
      idempotencyPendingMs: 60_000,
      databasePoolSize: 10,
      workers: 1,
      webhookAllowHosts: [],
      webhookRetryDelays: [5, 300, 1800, 7200, 18000, 36000, 36000],
      webhookFailureLimit: 20,
      webhookTimeoutMs: 10_000,
      sessionIdleSeconds: 43_200,
      sessionMaxSeconds: 604_800,
    })
  })

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://qrctl@db:5432/qrctl',
      PUBLIC_BASE_URL: 'https://qr.example.com/',
      REDIS_URL: 'redis://cache:6379',
      GEOIP_DB: '/data/city.mmdb',
      VISITOR_SECRET: 'a-long-enough-secret',
      LOG_LEVEL: 'warn',
      TRUST_PROXY: 'on',
      RATE_LIMIT_PER_MINUTE: '250',
      SHUTDOWN_TIMEOUT_MS: '25000',
      IDEMPOTENCY_PENDING_SECONDS: '5',
      DATABASE_POOL_SIZE: '30',
      WORKERS: '3',
      WEBHOOK_ALLOW_HOSTS: 'Hooks.internal, 10.0.0.0/8,::1',
      WEBHOOK_RETRY_DELAYS: '1, 2.5,60',
      WEBHOOK_FAILURE_LIMIT: '3',
      WEBHOOK_TIMEOUT_MS: '2500',
      SESSION_IDLE_SECONDS: '600',
      SESSION_MAX_SECONDS: '3600',
    })
    expect(config).toEqual({
      port: 8080,
      host: '127.0.0.1',
      database: { dialect: 'postgres', connectionString: 'postgres://qrctl@db:5432/qrctl' },
      publicBaseUrl: 'https://qr.example.com',
      redisUrl: 'redis://cache:6379',
      geoipDb: '/data/city.mmdb',
      visitorSecret: 'a-long-enough-secret',
      logLevel: 'warn',
      trustProxyHops: 1,
      rateLimitPerMinute: 250,
      shutdownTimeoutMs: 25_000,
      idempotencyPendingMs: 5000,
      databasePoolSize: 30,
      workers: 3,
      webhookAllowHosts: ['hooks.internal', '10.0.0.0/8', '::1'],
      webhookRetryDelays: [1, 2.5, 60],
      webhookFailureLimit: 3,
      webhookTimeoutMs: 2500,
      sessionIdleSeconds: 600,
      sessionMaxSeconds: 3600,
    })
  })

  it('reads WORKERS=auto as one process per core, and refuses what is not a count', () => {
    expect(loadConfig({ WORKERS: 'auto' }).workers).toBe(availableParallelism())
    expect(loadConfig({ WORKERS: ' Auto ' }).workers).toBe(availableParallelism())
    for (const bad of ['0', '-1', '1.5', 'many', '65'])
      expect(() => loadConfig({ WORKERS: bad })).toThrow(/WORKERS/)
  })

  it('refuses session lifetimes that are not whole seconds between 1 and 400 days', () => {
    for (const bad of ['0', '-5', '1.5', 'soon', '34560001']) {
      expect(() => loadConfig({ SESSION_IDLE_SECONDS: bad })).toThrow(/SESSION_IDLE_SECONDS/)
      expect(() => loadConfig({ SESSION_MAX_SECONDS: bad })).toThrow(/SESSION_MAX_SECONDS/)
    }
  })

  it('reads an empty WEBHOOK_RETRY_DELAYS as no retries', () => {
    expect(loadConfig({ WEBHOOK_RETRY_DELAYS: '' }).webhookRetryDelays).toEqual([])
  })

  it.each([
    ['WEBHOOK_RETRY_DELAYS', '5,soon'],
    ['WEBHOOK_RETRY_DELAYS', '-1'],
    ['WEBHOOK_ALLOW_HOSTS', '10.0.0.0/33'],
    ['WEBHOOK_ALLOW_HOSTS', 'example.com/8'],
    ['WEBHOOK_FAILURE_LIMIT', '0'],
    ['WEBHOOK_TIMEOUT_MS', 'fast'],
  ])('refuses %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name)
  })

  it('defaults PUBLIC_BASE_URL to localhost on PORT', () => {
    expect(loadConfig({ PORT: '4000' }).publicBaseUrl).toBe('http://localhost:4000')
  })

  it.each([
    ['file:/tmp/q.db', { dialect: 'sqlite', filename: '/tmp/q.db' }],
    [':memory:', { dialect: 'sqlite', filename: ':memory:' }],
    ['postgresql://u@h/db', { dialect: 'postgres', connectionString: 'postgresql://u@h/db' }],
  ])('reads DATABASE_URL %s', (url, database) => {
    expect(loadConfig({ DATABASE_URL: url }).database).toEqual(database)
  })

  it.each([
    ['on', 1],
    ['true', 1],
    ['1', 1],
    ['3', 3],
    ['off', 0],
    ['false', 0],
    ['0', 0],
  ])('reads TRUST_PROXY=%s as %i trusted proxy hops', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxyHops).toBe(expected)
  })

  it.each(['maybe', '-1', '11', '1.5'])('refuses TRUST_PROXY=%s', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY/)
  })

  it('names every invalid variable at once', () => {
    const load = () =>
      loadConfig({
        PORT: 'eighty',
        PUBLIC_BASE_URL: 'not a url',
        VISITOR_SECRET: 'short',
        LOG_LEVEL: 'loud',
        TRUST_PROXY: 'maybe',
        RATE_LIMIT_PER_MINUTE: '0',
        IDEMPOTENCY_PENDING_SECONDS: '0',
      })
    expect(load).toThrow(/Invalid configuration/)
    try {
      load()
    } catch (error) {
      const message = (error as Error).message
      for (const name of [
        'PORT',
        'PUBLIC_BASE_URL',
        'VISITOR_SECRET',
        'LOG_LEVEL',
        'TRUST_PROXY',
        'RATE_LIMIT_PER_MINUTE',
        'IDEMPOTENCY_PENDING_SECONDS',
      ])
        expect(message).toContain(name)
    }
  })

  it('refuses a DATABASE_URL it cannot use, without echoing credentials', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://root:hunter2@db/qrctl' })).toThrow(/file: or postgres:/)
    expect(() => loadConfig({ DATABASE_URL: 'mysql://root:hunter2@db/qrctl' })).not.toThrow(/hunter2/)
  })
})
