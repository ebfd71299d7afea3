import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EXPORT_COLUMNS } from '@qrctl/contract'
import { ManualClock } from '@qrctl/server'
import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Api, api, createCode, dynamicCode, expectError, MISSING_ID, UNLIMITED } from '../api/helpers.js'
import { AGENTS, PLACES, scanOk } from '../redirects/scan-helpers.js'
import { launchServerCommand } from '../support/process.js'
import { dialects, startServer, type TestServer } from '../support/server.js'
import { importCsv, scansAt, toCsv } from './import-helpers.js'

type Row = Record<(typeof EXPORT_COLUMNS)[number], string>

/** DESIGN §16: the streamed CSV export and `admin import-scans`, which reads it back. */
describe.each(dialects())('scan export and import on %s', (dialect) => {
  let server: TestServer
  const clock = new ManualClock(new Date('2026-11-20T12:00:00.000Z'))

  beforeAll(async () => {
    server = await startServer({ dialect, clock, env: { ...UNLIMITED, TRUST_PROXY: 'on' } })
  })
  afterAll(() => server.close())

  async function account(names: string[]) {
    const owner = await server.createAccount()
    const client = api(server, owner.apiKey)
    const codes: Record<string, { id: string; shortCode: string }> = {}
    for (const name of names) {
      const code = await createCode(client, dynamicCode({ name }))
      codes[name] = { id: code.id, shortCode: code.shortCode as string }
    }
    return { ...owner, client, codes }
  }

  async function exportCsv(client: Api, query: string) {
    const res = await client.get(`/analytics/export?${query}`)
    expect(res.status, res.text).toBe(200)
    return { res, rows: parse(res.text, { columns: true }) as Row[] }
  }

  describe('happy', () => {
    it('streams one row per scan in time order, with the zone’s offset, as an attachment', async () => {
      const a = await account(['Menu', 'Door'])
      await scansAt(server, a.accountId, a.codes.Menu?.id as string, [
        { at: '2026-11-01T05:30:00.000Z', visitor: 'v1', country: 'US' }, // 01:30 EDT
        { at: '2026-11-01T06:30:00.000Z', visitor: 'v2' }, // 01:30 EST, an hour later
      ])
      await scansAt(server, a.accountId, a.codes.Door?.id as string, [
        { at: '2026-11-01T06:00:00.000Z', visitor: 'v3' },
      ])
      const { res, rows } = await exportCsv(
        a.client,
        'from=2026-11-01&to=2026-11-01&timezone=America/New_York',
      )
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
      expect(res.headers.get('content-disposition')).toBe(
        'attachment; filename=scans-2026-11-01-to-2026-11-01.csv',
      )
      expect(res.headers.get('cache-control')).toBe('no-store')
      expect(res.text.split('\r\n')[0]).toBe(EXPORT_COLUMNS.join(','))
      expect(rows.map((r) => [r.scannedAt, r.name, r.visitorId])).toEqual([
        ['2026-11-01T01:30:00.000-04:00', 'Menu', 'v1'],
        ['2026-11-01T01:00:00.000-05:00', 'Door', 'v3'],
        ['2026-11-01T01:30:00.000-05:00', 'Menu', 'v2'],
      ])
      expect(rows[0]).toMatchObject({
        qrCodeId: a.codes.Menu?.id,
        shortCode: a.codes.Menu?.shortCode,
        device: 'mobile',
        browser: 'Unknown',
        os: 'Unknown',
        country: 'US',
        city: 'Unknown',
        referrer: 'direct',
      })
      const kathmandu = await exportCsv(
        a.client,
        `from=2026-11-01&to=2026-11-01&timezone=Asia/Kathmandu&qrCodeIds=${a.codes.Door?.id}`,
      )
      expect(kathmandu.rows.map((r) => r.scannedAt)).toEqual(['2026-11-01T11:45:00.000+05:45'])
    })

    it('exports what the redirect recorded, and leaves out deleted codes', async () => {
      const a = await account(['Live', 'Deleted'])
      clock.set('2026-11-20T12:00:00.000Z')
      await scanOk(server, a.codes.Live?.shortCode as string, {
        ip: PLACES.jp.ip,
        ua: AGENTS.windows.ua,
        referer: 'https://news.example/a',
      })
      await scanOk(server, a.codes.Deleted?.shortCode as string)
      await server.running.scans.flush()
      await a.client.delete(`/qr-codes/${a.codes.Deleted?.id}`)
      const { rows } = await exportCsv(a.client, 'from=2026-11-20&to=2026-11-20')
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({
        scannedAt: '2026-11-20T12:00:00.000+00:00',
        name: 'Live',
        device: 'desktop',
        browser: 'Chrome',
        os: 'Windows',
        country: 'JP',
        city: PLACES.jp.city,
        referrer: 'news.example',
      })
      // A base64url id; one that starts with '-' is defused like any formula start (1 in 64).
      expect(rows[0]?.visitorId).toMatch(/^(?:'-|[A-Za-z0-9_])[A-Za-z0-9_-]{19,}$/)
    })

    it('defuses formulas and quotes as RFC 4180 says', async () => {
      const a = await account([
        '=HYPERLINK("http://evil.example","x")',
        '+1',
        '-2',
        '@SUM(A1)',
        'Menu, "spring"\nline two',
      ])
      for (const code of Object.values(a.codes))
        await scansAt(server, a.accountId, code.id, ['2026-11-02T10:00:00.000Z'])
      const { res, rows } = await exportCsv(a.client, 'from=2026-11-02&to=2026-11-02')
      expect(rows.map((r) => r.name).sort()).toEqual(
        [
          "'+1",
          "'-2",
          '\'=HYPERLINK("http://evil.example","x")',
          "'@SUM(A1)",
          'Menu, "spring"\nline two',
        ].sort(),
      )
      expect(res.text).toContain('"\'=HYPERLINK(""http://evil.example"",""x"")"')
      expect(res.text).toContain('"Menu, ""spring""\nline two"')
      expect(res.text.endsWith('\r\n')).toBe(true)
    })

    it('defuses and quotes what a scan recorded too, on every row of a long export', async () => {
      // Values as an import (or a hostile user agent or referrer) can store them, on more rows
      // than one cursor fetch or page, so the cells are checked past the first chunk.
      const a = await account(['Plain'])
      const hostile = {
        browser: '=cmd|" /C calc"!A0',
        os: '+SUM(1)',
        country: '@x',
        city: 'Zürich, "the city"',
        referrer: 'a\nb',
      }
      const rows = Array.from({ length: 4500 }, (_, i) => ({
        scannedAt: new Date(Date.parse('2026-11-06T00:00:00.000Z') + i * 1000).toISOString(),
        qrCodeId: a.codes.Plain?.id,
        device: 'mobile',
        visitorId: i % 2 === 0 ? `-v${i}` : `v${i}`,
        ...(i % 1000 === 999 ? hostile : {}),
      }))
      expect(await importCsv(server, a.accountId, toCsv(rows))).toEqual({
        imported: 4500,
        alreadyImported: 0,
        errors: [],
      })
      const { res, rows: exported } = await exportCsv(a.client, 'from=2026-11-06&to=2026-11-06')
      expect(exported).toHaveLength(4500)
      expect(exported.map((r) => r.visitorId)).toEqual(rows.map((r) => r.visitorId.replace(/^-/, "'-")))
      for (const i of [999, 1999, 2999, 3999])
        expect(exported[i]).toMatchObject({
          browser: `'=cmd|" /C calc"!A0`,
          os: "'+SUM(1)",
          country: "'@x",
          city: 'Zürich, "the city"',
          referrer: 'a\nb',
        })
      expect(exported[1000]).toMatchObject({ browser: 'Unknown', city: 'Unknown', referrer: 'Unknown' })
      expect(res.text).toContain(`,"'=cmd|"" /C calc""!A0",'+SUM(1),'@x,"Zürich, ""the city""","a\nb",`)
      expect(res.text.split('\r\n')).toHaveLength(4502)
    })

    it('round-trips: an export imported into copies of the codes gives the same analytics', async () => {
      const a = await account(['Menu', 'Door'])
      const scans = Array.from({ length: 60 }, (_, i) => ({
        at: new Date(Date.parse('2026-10-25T00:00:00.000Z') + i * 4_321_000 * 7).toISOString(),
        visitor: `v${i % 9}`,
        country: ['NP', 'US', 'DE'][i % 3] as string,
        device: ['mobile', 'desktop'][i % 2] as string,
      }))
      await scansAt(server, a.accountId, a.codes.Menu?.id as string, scans.slice(0, 40))
      await scansAt(server, a.accountId, a.codes.Door?.id as string, scans.slice(40))
      const window = 'from=2026-10-20&to=2026-11-20&timezone=Asia/Kathmandu'
      const { res } = await exportCsv(a.client, window)

      const b = await account(['Menu', 'Door'])
      let csv = res.text
      for (const name of ['Menu', 'Door'] as const)
        csv = csv
          .replaceAll(a.codes[name]?.id as string, b.codes[name]?.id as string)
          .replaceAll(a.codes[name]?.shortCode as string, b.codes[name]?.shortCode as string)
      const report = await importCsv(server, b.accountId, csv)
      expect(report).toEqual({ imported: 60, alreadyImported: 0, errors: [] })
      for (const name of ['Menu', 'Door'] as const) {
        const before = await a.client.get(`/qr-codes/${a.codes[name]?.id}/analytics?${window}`)
        const after = await b.client.get(`/qr-codes/${b.codes[name]?.id}/analytics?${window}`)
        expect(after.body.data).toEqual(before.body.data)
      }
      const before = (await a.client.get(`/analytics?${window}`)).body.data
      const after = (await b.client.get(`/analytics?${window}`)).body.data
      expect({ ...after, topCodes: undefined }).toEqual({ ...before, topCodes: undefined })
      expect(after.topCodes.map((c: { count: number }) => c.count)).toEqual(
        before.topCodes.map((c: { count: number }) => c.count),
      )
      expect((await exportCsv(b.client, window)).rows.map((r) => r.scannedAt)).toEqual(
        (await exportCsv(a.client, window)).rows.map((r) => r.scannedAt),
      )
    })

    it('pages through more rows than one page holds, in order', async () => {
      const a = await account(['Busy'])
      const start = Date.parse('2026-09-01T00:00:00.000Z')
      const scans = Array.from({ length: 12_000 }, (_, i) => ({
        at: new Date(start + ((i * 7919) % 12_000) * 60_000).toISOString(),
        visitor: `v${i % 500}`,
      }))
      await scansAt(server, a.accountId, a.codes.Busy?.id as string, scans)
      const { rows } = await exportCsv(a.client, 'from=2026-09-01&to=2026-09-30')
      expect(rows).toHaveLength(12_000)
      const times = rows.map((r) => r.scannedAt)
      expect(times).toEqual([...times].sort())
      const stats = (
        await a.client.get(`/qr-codes/${a.codes.Busy?.id}/analytics?from=2026-09-01&to=2026-09-30`)
      ).body.data
      expect(stats).toMatchObject({ totalEvents: 12_000, uniqueVisitors: 500 })
    })
  })

  describe('errors', () => {
    it('needs from and to, with the window rules', async () => {
      const a = await account(['One'])
      for (const [query, field] of [
        ['', 'from'],
        ['from=2026-01-01', 'to'],
        ['from=2026-01-02&to=2026-01-01', 'to'],
        ['from=2025-01-01&to=2026-06-01', 'to'],
        ['from=2026-01-01&to=2026-01-02&timezone=Nowhere/Land', 'timezone'],
        ['from=2026-01-01&to=2026-01-02&qrCodeIds=x', 'qrCodeIds'],
        ['from=2026-01-01&to=2026-01-02&period=7d', ''],
      ] as const) {
        const res = await a.client.get(`/analytics/export?${query}`)
        expectError(res, 400, 'validation_error')
        expect(res.body.details.issues[0].path, query).toBe(field)
      }
      expectError(
        await a.client.get(`/analytics/export?from=2026-01-01&to=2026-01-02&qrCodeIds=${MISSING_ID}`),
        404,
        'not_found',
      )
    })

    it('reports bad rows by line and imports nothing of such a file unless told to skip them', async () => {
      const a = await account(['One'])
      const id = a.codes.One?.id as string
      const good = {
        scannedAt: '2026-11-03T10:00:00.000+01:00',
        qrCodeId: id,
        device: 'mobile',
        visitorId: 'v',
      }
      const csv = toCsv([
        good,
        { ...good, scannedAt: 'yesterday' },
        { ...good, device: 'fridge' },
        { ...good, qrCodeId: MISSING_ID },
        { ...good, qrCodeId: '', shortCode: a.codes.One?.shortCode },
        { ...good, visitorId: '' },
      ])
      const refused = await importCsv(server, a.accountId, csv)
      expect(refused.imported).toBe(0)
      expect(refused.errors.map((e) => e.line)).toEqual([3, 4, 5, 7])
      expect(refused.errors[0]?.message).toContain('scannedAt')
      expect(refused.errors[1]?.message).toContain('device')
      const stats = async () =>
        (await a.client.get(`/qr-codes/${id}/analytics?from=2026-11-03&to=2026-11-03`)).body.data.totalEvents
      expect(await stats()).toBe(0)
      const skipped = await importCsv(server, a.accountId, csv, { skipBad: true })
      expect(skipped.imported).toBe(2)
      expect(await stats()).toBe(2)
      const noHeader = await importCsv(server, a.accountId, 'when,where\r\n1,2\r\n', { skipBad: true })
      expect(noHeader.imported).toBe(0)
      expect(noHeader.errors[0]?.message).toContain('unknown column')
    })
  })

  describe('security', () => {
    it('answers 404 for another account’s code and never exports its scans', async () => {
      const a = await account(['Mine'])
      const b = await account(['Theirs'])
      await scansAt(server, b.accountId, b.codes.Theirs?.id as string, ['2026-11-04T10:00:00.000Z'])
      expectError(
        await a.client.get(`/analytics/export?from=2026-11-04&to=2026-11-04&qrCodeIds=${b.codes.Theirs?.id}`),
        404,
        'not_found',
      )
      expect((await exportCsv(a.client, 'from=2026-11-04&to=2026-11-04')).rows).toEqual([])
      // Import matches only the importing account's codes.
      const report = await importCsv(
        server,
        a.accountId,
        toCsv([
          {
            scannedAt: '2026-11-04T10:00:00Z',
            qrCodeId: b.codes.Theirs?.id,
            device: 'mobile',
            visitorId: 'v',
          },
        ]),
      )
      expect(report.imported).toBe(0)
      expect(report.errors[0]?.line).toBe(2)
    })
  })

  describe('qrctl-server admin import-scans', () => {
    it('finishes an import that was killed half-way when run again, storing each scan once', async () => {
      const a = await account(['Resume'])
      const id = a.codes.Resume?.id as string
      const dir = mkdtempSync(join(tmpdir(), 'qrctl-cli-resume-'))
      const total = 20_000
      const stored = async () =>
        Number(
          (
            await server.ctx.db
              .selectFrom('scans')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('qr_code_id', '=', id)
              .executeTakeFirstOrThrow()
          ).n,
        )
      try {
        const file = join(dir, 'history.csv')
        const start = Date.parse('2026-10-01T00:00:00.000Z')
        writeFileSync(
          file,
          toCsv(
            Array.from({ length: total }, (_, i) => ({
              scannedAt: new Date(start + i * 60_000).toISOString(),
              qrCodeId: id,
              device: 'mobile',
              visitorId: `v${i % 3_000}`,
            })),
          ),
        )
        const env = { DATABASE_URL: server.databaseUrl, LOG_LEVEL: 'error' }
        const args = ['admin', 'import-scans', '--account', a.accountId, file]
        // Killed once its first batches are stored (2,000 scans to a transaction).
        const first = launchServerCommand(args, env)
        for (let waited = 0; (await stored()) === 0 && waited < 60_000; waited += 10)
          await new Promise((resolve) => setTimeout(resolve, 10))
        first.child.kill('SIGKILL')
        expect((await first.done).signal).toBe('SIGKILL')
        const before = await stored()
        expect(before).toBeGreaterThan(0)
        expect(before).toBeLessThan(total)

        const again = await launchServerCommand(args, env).done
        expect(again.code, again.stderr).toBe(0)
        expect(again.stdout).toBe(
          `Imported ${total - before} scans; ${before} already imported by an earlier run of this file\n`,
        )
        expect(await stored()).toBe(total)
        const stats = (await a.client.get(`/qr-codes/${id}/analytics?from=2026-10-01&to=2026-10-14`)).body
          .data
        expect(stats).toMatchObject({ totalEvents: total, uniqueVisitors: 3_000 })

        // The same file a third time stores nothing.
        const third = await launchServerCommand([...args, '--json'], env).done
        expect(JSON.parse(third.stdout)).toEqual({ imported: 0, alreadyImported: total, badRows: 0 })
        expect(await stored()).toBe(total)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }, 180_000)

    it('imports a file, and exits 1 with the bad lines on stderr when a row is bad', async () => {
      const a = await account(['Cli'])
      const dir = mkdtempSync(join(tmpdir(), 'qrctl-cli-import-'))
      try {
        const row = {
          scannedAt: '2026-11-05T10:00:00.000Z',
          qrCodeId: a.codes.Cli?.id,
          device: 'mobile',
          visitorId: 'v',
        }
        const good = join(dir, 'good.csv')
        writeFileSync(good, toCsv([row, { ...row, visitorId: 'w' }]))
        const env = { DATABASE_URL: server.databaseUrl, LOG_LEVEL: 'error' }
        const ok = await launchServerCommand(['admin', 'import-scans', '--account', a.accountId, good], env)
          .done
        expect(ok.code, ok.stderr).toBe(0)
        expect(ok.stdout).toBe('Imported 2 scans\n')
        const bad = join(dir, 'bad.csv')
        writeFileSync(bad, toCsv([row, { ...row, device: 'toaster' }]))
        const refused = await launchServerCommand(
          ['admin', 'import-scans', '--account', a.accountId, bad],
          env,
        ).done
        expect(refused.code).toBe(1)
        expect(refused.stderr).toContain('line 3: device')
        const usage = await launchServerCommand(['admin', 'import-scans', '--account', a.accountId], env).done
        expect(usage.code).toBe(2)
        const stats = (
          await a.client.get(`/qr-codes/${a.codes.Cli?.id}/analytics?from=2026-11-05&to=2026-11-05`)
        ).body.data
        expect(stats).toMatchObject({ totalEvents: 2, uniqueVisitors: 2 })
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  })
})
